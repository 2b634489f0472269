/* SPDX-License-Identifier: MIT */
/*
 * uv-mangled.c - a C program whose libuv callbacks carry C++ names, as a
 * C++ program's do (Node.js hands libuv methods and lambdas): the libuv
 * shim labels them demangled, "timer 1 ms ->
 * node::Environment::CheckImmediate".  The names are the ones g++ gives
 * a static method, a method in an anonymous namespace and a capture-less
 * lambda turned into a function pointer; as a C program it has no C++
 * runtime loaded until the shim needs one.  Three more callbacks have
 * long names: one of exactly 95 bytes (what a label keeps of a callback's
 * name: kept whole), one of 96 and a C++ one of 109 once shortened (both
 * cut to 95 bytes, and counted as truncated texts).
 */
#include <stdio.h>
#include <uv.h>

void check_immediate(uv_timer_t *t) __asm__("_ZN4node11Environment14CheckImmedi"
					    "ateEP10uv_check_s");
void on_timer(uv_timer_t *t) __asm__("_ZN4node12_GLOBAL__N_11T7OnTimerEP10uv_"
				     "timer_s");
void lambda_fun(uv_timer_t *t) __asm__("_ZZN4node11Environment3RegEvENUlP11uv_"
				       "handle_sE_4_FUNES2_");

void long_cxx(uv_timer_t *t) __asm__("_ZN4node35a_namespace_with_a_rather_long_"
				     "name35AClassWhoseNameIsLongE"
				     "noughToMatter28OnTimerCallbackThatFiresOn"
				     "ceEP10uv_timer_s");
/* 95 and 96 bytes */
void on_timer_whose_name_is_exactly_ninety_five_bytes_long_so_that_the_label_keeps_all_of_it_xxxxxxx(
	uv_timer_t *t);
void on_timer_whose_name_is_ninety_six_bytes_long_one_more_than_a_label_keeps_so_it_is_cut_x_yzwvutsr(
	uv_timer_t *t);

void long_cxx(uv_timer_t *t)
{
	puts("long C++ name");
	uv_close((uv_handle_t *)t, NULL);
}

void on_timer_whose_name_is_exactly_ninety_five_bytes_long_so_that_the_label_keeps_all_of_it_xxxxxxx(
	uv_timer_t *t)
{
	puts("95");
	uv_close((uv_handle_t *)t, NULL);
}

void on_timer_whose_name_is_ninety_six_bytes_long_one_more_than_a_label_keeps_so_it_is_cut_x_yzwvutsr(
	uv_timer_t *t)
{
	puts("96");
	uv_close((uv_handle_t *)t, NULL);
}

void check_immediate(uv_timer_t *t)
{
	puts("CheckImmediate");
	uv_close((uv_handle_t *)t, NULL);
}

void on_timer(uv_timer_t *t)
{
	puts("OnTimer");
	uv_close((uv_handle_t *)t, NULL);
}

void lambda_fun(uv_timer_t *t)
{
	puts("lambda");
	uv_close((uv_handle_t *)t, NULL);
}

int main(void)
{
	uv_loop_t *loop = uv_default_loop();
	uv_timer_t a, b, c, d, e, f;
	uv_timer_init(loop, &a);
	uv_timer_init(loop, &b);
	uv_timer_init(loop, &c);
	uv_timer_init(loop, &d);
	uv_timer_init(loop, &e);
	uv_timer_init(loop, &f);
	uv_timer_start(&a, check_immediate, 1, 0);
	uv_timer_start(&b, on_timer, 2, 0);
	uv_timer_start(&c, lambda_fun, 3, 0);
	uv_timer_start(&d, long_cxx, 4, 0);
	uv_timer_start(
		&e,
		on_timer_whose_name_is_exactly_ninety_five_bytes_long_so_that_the_label_keeps_all_of_it_xxxxxxx,
		5, 0);
	uv_timer_start(
		&f,
		on_timer_whose_name_is_ninety_six_bytes_long_one_more_than_a_label_keeps_so_it_is_cut_x_yzwvutsr,
		6, 0);
	uv_run(loop, UV_RUN_DEFAULT);
	return uv_loop_close(loop) != 0;
}
