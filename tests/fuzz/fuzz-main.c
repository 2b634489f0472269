/* SPDX-License-Identifier: MIT */
/*
 * fuzz-main.c - replays fuzz inputs without libFuzzer (any compiler, under
 * ASan+UBSan in CI): `fuzz-replay FILE|DIR...`, one TAP line per input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int n;

static void one(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - %s # cannot open\n", ++n, path);
		return;
	}
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
	size_t got = len > 0 ? fread(buf, 1, (size_t)len, f) : 0;
	fclose(f);
	/* An exact-size copy, so ASan catches a read one past the end. */
	uint8_t *exact = malloc(got ? got : 1);
	memcpy(exact, buf, got);
	LLVMFuzzerTestOneInput(exact, got);
	free(exact);
	free(buf);
	printf("ok %d - %s\n", ++n, path);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
			struct dirent **names;
			int k = scandir(argv[i], &names, NULL, alphasort);
			for (int j = 0; j < k; j++) {
				if (names[j]->d_name[0] != '.') {
					char p[4096];
					snprintf(p, sizeof p, "%s/%s", argv[i],
						 names[j]->d_name);
					one(p);
				}
				free(names[j]);
			}
			free(names);
		} else
			one(argv[i]);
	}
	printf("1..%d\n# %d passed, 0 failed, 0 skipped\n", n, n);
	return 0;
}
