/* SPDX-License-Identifier: MIT */
/*
 * runs-disk.c - the parts of a merge read from the disk (multi.h): the
 * paths a merge is opened with (rings, run directories, bundles, kept
 * directories, "-"), a run directory's rings (scanned, again while it is
 * followed; one its manifest names checked) and manifest (read as it
 * grows), a bundle's file, a kept directory's rings (kept.c), a ring read
 * once more.  Not in the WebAssembly build (src/read/meson.build: wasi.c
 * stands in), which reads a bundle in memory only.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "multi.h"
#include "sys.h"
#include "common/grow.h"
#include "kept.h"

#define MANIFEST_MAX (64u << 20)

/* Reads a whole regular file (a bundle) into memory. */
int weft__read_file(const char *path, uint8_t **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat sb;
	int err = fstat(fd, &sb) < 0 ? -errno : 0;
	size_t n = err ? 0 : (size_t)sb.st_size;
	uint8_t *b = err ? NULL : malloc(n ? n : 1);
	if (!err && !b)
		err = -ENOMEM;
	size_t got = 0;
	while (!err && got < n) {
		ssize_t k = pread(fd, b + got, n - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			err = k < 0 ? -errno : WEFT_ETRUNC;
		else
			got += (size_t)k;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	*out = b;
	*len = n;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rings of run directory `run` not read yet; `initial`: an open
 * (a ring that cannot be read fails it), else a followed run's growth (a
 * ring not readable yet is looked at again next time). */
int weft__scan_dir(struct rmulti *M, uint32_t run, int initial,
		   struct weft_diag *d)
{
	const char *dir = M->runs[run].dir;
	DIR *dp = opendir(dir);
	if (!dp)
		return weft__diag(d, -errno, 0, "%s: %s", dir, strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		const char *nm = de->d_name;
		size_t l = strlen(nm);
		if (nm[0] == '.' || !strcmp(nm, "manifest") ||
		    (l > 4 && !strcmp(nm + l - 4, ".tmp")))
			continue;
		if (WEFT_GROW(names, cap, n + 1)) {
			err = -ENOMEM;
			break;
		}
		size_t pl = strlen(dir) + l + 2;
		if (!(names[n] = malloc(pl))) {
			err = -ENOMEM;
			break;
		}
		snprintf(names[n], pl, "%s/%s", dir, nm);
		n++;
	}
	closedir(dp);
	if (names)
		qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n && !err; i++) {
		if (weft__have_path(M, names[i]))
			continue;
		/* a file named as a ring is one (made under another name and
		 * renamed: whole from the start): when it does not read, it
		 * was damaged since (flipped, emptied, cut); said, and the
		 * other rings read */
		const char *base = names[i] + strlen(dir) + 1;
		int named = !strcmp(base, "ring") || !strncmp(base, "ring.", 5);
		/* (a ring: a regular file, not a link, with a ring's magic) */
		if (!weft__file_begins(names[i], WEFT_FILE_MAGIC, 8, 1) &&
		    !(initial && named))
			continue;
		struct weft_reader *sr;
		struct weft_diag sd = {0};
		int e = weft__ring_open(&sr, names[i], M->flags, &sd);
		if (e) {
			if (initial)
				err = weft__bad_ring(M, run, names[i], e,
						     sd.msg);
			continue;
		}
		if ((err = weft__add_sub(M, sr, names[i], run))) {
			weft_reader_close(sr);
			err = err > 0 ? 0 : err;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

/* Reads what the run's manifest holds beyond what was parsed (whole lines
 * only: a writer may be half-way through one... no: each line is one
 * write(2), but a reader may still catch a file mid-append). */
int weft__read_manifest(struct rmulti *M, uint32_t run)
{
	struct mrun *r = &M->runs[run];
	char path[4200];
	snprintf(path, sizeof path, "%s/manifest", r->dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	struct stat sb;
	int err = 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size <= r->man_off ||
	    (uint64_t)sb.st_size > MANIFEST_MAX) {
		close(fd);
		return 0;
	}
	size_t want = (size_t)sb.st_size - r->man_off;
	char *b = malloc(want);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	ssize_t k = pread(fd, b, want, (off_t)r->man_off);
	close(fd);
	if (k > 0) {
		const char *nl = memrchr(b, '\n', (size_t)k);
		if (nl) {
			size_t used = (size_t)(nl - b) + 1;
			err = weft__manifest_parse(&r->man, b, used);
			r->man_off += used;
		}
	}
	free(b);
	return err;
}

/* Chunks of a kept directory left out (damaged): said as a problem. */
static void kept_note(struct rmulti *M, const char *dir,
		      const struct kept_notes *kn)
{
	if (kn->n && M->nkept < sizeof M->kept / sizeof *M->kept)
		snprintf(M->kept[M->nkept++], sizeof *M->kept,
			 "%.20s: %u damaged chunk%s, left out where unreadable "
			 "(%.40s)",
			 dir, kn->n, kn->n == 1 ? "" : "s", kn->what);
	if (kn->unwritten && M->nkept < sizeof M->kept / sizeof *M->kept)
		snprintf(M->kept[M->nkept++], sizeof *M->kept,
			 "%.30s: %llu packets lost: the disk refused their "
			 "chunks (keep.log)",
			 dir, (unsigned long long)kn->unwritten);
}

/* A kept directory (kept.c): each ring a reader of its chunks, read frame
 * by frame; with the run's manifest (or several rings), a run of them, as
 * a bundle's are. */
int weft__add_kept(struct rmulti *M, const char *p, struct weft_diag *d)
{
	struct weft__kset *S;
	int err = weft__kept_open(p, M->kept_thread, &S, d);
	if (err)
		return err;
	uint32_t run = NONE;
	if (S->man || S->nrings > 1) {
		if ((err = weft__add_run(M, NULL)))
			goto out;
		run = M->nruns - 1;
		M->runs[run].in_bundle = 1;
		if (S->man) {
			uint8_t *man = S->man;
			S->man = NULL;
			if (!(err = weft__keep_owned(M, man)))
				err = weft__manifest_parse(&M->runs[run].man,
							   (const char *)man,
							   S->manlen);
		}
	}
	for (uint32_t i = 0; i < S->nrings && !err; i++) {
		char name[600];
		snprintf(name, sizeof name, "%s:%s", p, S->ring[i].name);
		struct weft_reader *sr;
		struct weft_diag sd = {0};
		err = weft__reader_open_kept(&sr, S->ring[i].K, 0, &sd);
		if (err && run != NONE) {
			/* (the directory's other rings are read) */
			err = weft__bad_ring(M, run, name, err, sd.msg);
			continue;
		}
		if (err) {
			err = weft__diag(d, err, sd.offset, "%s: %s", p,
					 sd.msg);
			break;
		}
		if ((err = weft__add_sub(M, sr, run != NONE ? name : p, run))) {
			weft_reader_close(sr);
			err = err > 0 ? 0 : err;
		} else {
			M->sub[M->nsub - 1].kring = S->ring[i].K;
			weft__kring_ref(S->ring[i].K);
		}
	}
	if (!err && run != NONE)
		err = weft__rings_missing(M, run, p, NULL);
	/* (damaged frames: found as each reader indexed its ring) */
	for (uint32_t i = 0; i < S->nrings && !err; i++) {
		const struct kept_notes *kn = weft__kring_notes(S->ring[i].K);
		if (kn->n && !S->notes.n)
			memcpy(S->notes.what, kn->what, sizeof kn->what);
		S->notes.n += kn->n;
	}
	if (!err)
		kept_note(M, p, &S->notes);
out:
	weft__kept_set_free(S);
	return err;
}

/* A ring of a run directory that its manifest names and the scan did not
 * read: -ENOENT when nothing is there, 0 when it reads as a ring after
 * all (it appeared meanwhile), else why not (said in sd). */
static int dir_ring_check(const char *path, struct weft_diag *sd)
{
	struct stat sb;
	if (lstat(path, &sb) < 0)
		return -ENOENT;
	/* (not a ring's name: not looked at by the scan) */
	if (!S_ISREG(sb.st_mode)) {
		snprintf(sd->msg, sizeof sd->msg, "not a regular file");
		return WEFT_ENOTTRACE;
	}
	struct weft_reader *sr = NULL;
	int err = weft__ring_open(&sr, path, 0, sd);
	weft_reader_close(sr);
	return err;
}

int weft__ring_reopen(const struct msub *s, struct weft_reader **r)
{
	return s->kring ? weft__reader_open_kept(r, s->kring, 0, NULL)
			: weft__ring_open(r, s->path, 0, NULL);
}

/* A chunk of a kept directory, alone (kept.c). */
static int open_chunk(struct weft_reader **out, const char *path,
		      unsigned flags, struct weft_diag *d)
{
	struct weft__kring *K;
	int err = weft__kept_chunk(path, &K, d);
	if (err)
		return err;
	err = weft__reader_open_kept(out, K, flags, d);
	/* (its frames were all read by the index: one that does not
	 * decompress is said, as a chunk read alone is exact or an error) */
	const struct kept_notes *nt = weft__kring_notes(K);
	if (!err && nt->n) {
		weft_reader_close(*out);
		*out = NULL;
		err = weft__diag(d, WEFT_ECORRUPT, 0, "%s", nt->what);
	}
	weft__kring_free(K);
	return err;
}

int weft__file_open(struct weft_reader **out, const char *path, unsigned flags,
		    struct weft_diag *d)
{
	const uint32_t zstd = WEFT_ZSTD_MAGIC; /* (a kept chunk) */
	if (weft__file_begins(path, &zstd, 4, 0))
		return open_chunk(out, path, flags, d);
	return weft__ring_open(out, path, flags, d);
}

/* Opening step: `paths` (rings, run directories, bundles, kept
 * directories, "-") added to the merge; `plain` cleared when one is more
 * than a ring.  0 or a negative code (said in d). */
int weft__add_paths(struct rmulti *M, const char *const *paths, unsigned n,
		    unsigned flags, int *plain, struct weft_diag *d)
{
	int err = 0;
	for (unsigned i = 0; i < n && !err; i++) {
		const char *p = paths[i];
		struct stat sb;
		int isdir = strcmp(p, "-") && stat(p, &sb) == 0 &&
			    S_ISDIR(sb.st_mode);
		if (isdir && weft__kept_dir(p)) {
			/* a kept directory (kept.c): its chunks as one ring,
			 * or with its run's manifest as a bundle */
			*plain = 0;
			err = weft__add_kept(M, p, d);
			continue;
		}
		if (isdir) {
			*plain = 0;
			if (!(err = weft__add_run(M, p)))
				err = weft__read_manifest(M, M->nruns - 1);
			if (!err)
				err = weft__scan_dir(M, M->nruns - 1, 1, d);
			if (!err)
				err = weft__rings_missing(M, M->nruns - 1, NULL,
							  dir_ring_check);
			if (!err && !M->runs[M->nruns - 1].man.n &&
			    M->nsub == 0 && n == 1)
				err = weft__diag(d, WEFT_ENOTTRACE, 0,
						 "a directory that holds no "
						 "weft run (no manifest, no "
						 "ring)");
			continue;
		}
		/* a bundle, or a ring */
		char magic[8] = {0};
		int pipe_in = !strcmp(p, "-") ||
			      (stat(p, &sb) == 0 && !S_ISREG(sb.st_mode));
		/* (a FIFO is opened once: opening it takes its writer) */
		int fd = !pipe_in ? open(p, O_RDONLY | O_CLOEXEC) : -1;
		if (fd >= 0) {
			if (read(fd, magic, 8) != 8)
				magic[0] = 0;
			close(fd);
		}
		if (!memcmp(magic, WEFT_BUNDLE_MAGIC, 8) || pipe_in) {
			uint8_t *b;
			size_t len;
			int bundle = 0;
			int in = pipe_in && strcmp(p, "-")
					 ? open(p, O_RDONLY | O_CLOEXEC)
				 : pipe_in ? 0
					   : -1;
			if (pipe_in && in < 0)
				err = -errno;
			else if (pipe_in) {
				struct weft_diag sd = {0};
				err = weft__slurp(in, &b, &len, &bundle, &sd);
				if (err)
					err = weft__diag(d, err, sd.offset,
							 "%s: %s", p, sd.msg);
			} else if ((err = weft__read_file(p, &b, &len)))
				err = weft__diag(d, err, 0, "%s: %s", p,
						 weft_strerror(err));
			else
				bundle = 1;
			if (in > 0)
				close(in);
			if (err)
				break;
			if ((err = weft__keep_owned(M, b)))
				break;
			*plain = bundle ? 0 : *plain;
			err = weft__add_owned(M, b, len, bundle, p, d);
			continue;
		}
		struct weft_reader *sr;
		struct weft_diag sd = {0};
		if ((err = weft__file_open(&sr, p, flags, &sd))) {
			err = weft__diag(d, err, sd.offset, "%s%s%s",
					 n > 1 ? p : "", n > 1 ? ": " : "",
					 sd.msg);
			break;
		}
		if ((err = weft__add_sub(M, sr, p, NONE))) {
			weft_reader_close(sr);
			err = err > 0 ? 0 : err;
		}
	}
	return err;
}
