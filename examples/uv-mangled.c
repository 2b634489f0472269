/* SPDX-License-Identifier: MIT */
/*
 * uv-mangled.c - a C program whose libuv callbacks carry C++ names, as a
 * C++ program's do (Node.js hands libuv methods and lambdas): the libuv
 * shim labels them demangled, "timer 1 ms ->
 * node::Environment::CheckImmediate".  The names are the ones g++ gives
 * a static method, a method in an anonymous namespace and a capture-less
 * lambda turned into a function pointer; as a C program it has no C++
 * runtime loaded until the shim needs one.
 */
#include <stdio.h>
#include <uv.h>

void check_immediate(uv_timer_t *t) __asm__("_ZN4node11Environment14CheckImmedi"
					    "ateEP10uv_check_s");
void on_timer(uv_timer_t *t) __asm__("_ZN4node12_GLOBAL__N_11T7OnTimerEP10uv_"
				     "timer_s");
void lambda_fun(uv_timer_t *t) __asm__("_ZZN4node11Environment3RegEvENUlP11uv_"
				       "handle_sE_4_FUNES2_");

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
	uv_timer_t a, b, c;
	uv_timer_init(loop, &a);
	uv_timer_init(loop, &b);
	uv_timer_init(loop, &c);
	uv_timer_start(&a, check_immediate, 1, 0);
	uv_timer_start(&b, on_timer, 2, 0);
	uv_timer_start(&c, lambda_fun, 3, 0);
	uv_run(loop, UV_RUN_DEFAULT);
	return uv_loop_close(loop) != 0;
}
