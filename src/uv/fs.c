/* SPDX-License-Identifier: MIT */
/*
 * fs.c - libuv's file system requests: asynchronous with a callback
 * (completed through weft__shim_uv_tramp_fs), synchronous with NULL
 * (then recorded as created and resolved around the call).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "uv-shim.h"

#define FS_PATH_LABEL(path) "%s", (path) ? (path) : "?"

#define FS_WRAP(name, what, params, args, ...)                                 \
	int uv_fs_##name params                                                \
	{                                                                      \
		REAL(uv_fs_##name);                                            \
		if (INTERNAL())                                                \
			return real_uv_fs_##name args;                         \
		SCOPE_INSIDE();                                                \
		uint64_t id = weft__shim_uv_req_begin(                         \
			req, "uv_fs_t", (void (*)(void))cb, NULL, loop, 0);    \
		if (!id)                                                       \
			return real_uv_fs_##name args;                         \
		char text_[600];                                               \
		snprintf(text_, sizeof text_, __VA_ARGS__);                    \
		weft__shim_label(id, (const void *)cb, "%s %s", what, text_);  \
		if (!cb) {                                                     \
			int r_ = real_uv_fs_##name args;                       \
			struct shim_ent e_;                                    \
			weft__shim_uv_req_take(req, &e_);                      \
			weft__shim_complete(id, weft__shim_uv_fail(r_));       \
			return r_;                                             \
		}                                                              \
		uv_fs_cb user_ = cb;                                           \
		cb = weft__shim_uv_tramp_fs;                                   \
		int r_ = real_uv_fs_##name args;                               \
		cb = user_;                                                    \
		return weft__shim_uv_req_submitted(req, id, r_);               \
	}

FS_WRAP(open, "open",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int flags, int mode,
	 uv_fs_cb cb),
	(loop, req, path, flags, mode, cb), FS_PATH_LABEL(path))
FS_WRAP(close, "close",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, uv_fs_cb cb),
	(loop, req, file, cb), "fd %d", file)
FS_WRAP(read, "read",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, const uv_buf_t bufs[],
	 unsigned int nbufs, int64_t offset, uv_fs_cb cb),
	(loop, req, file, bufs, nbufs, offset, cb), "fd %d", file)
FS_WRAP(write, "write",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, const uv_buf_t bufs[],
	 unsigned int nbufs, int64_t offset, uv_fs_cb cb),
	(loop, req, file, bufs, nbufs, offset, cb), "fd %d", file)
FS_WRAP(unlink, "unlink",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(mkdir, "mkdir",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int mode,
	 uv_fs_cb cb),
	(loop, req, path, mode, cb), FS_PATH_LABEL(path))
FS_WRAP(rmdir, "rmdir",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(scandir, "scandir",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int flags,
	 uv_fs_cb cb),
	(loop, req, path, flags, cb), FS_PATH_LABEL(path))
FS_WRAP(stat, "stat",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(lstat, "lstat",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(fstat, "fstat",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, uv_fs_cb cb),
	(loop, req, file, cb), "fd %d", file)
FS_WRAP(rename, "rename",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, const char *new_path,
	 uv_fs_cb cb),
	(loop, req, path, new_path, cb), "%s to %s", path ? path : "?",
	new_path ? new_path : "?")
FS_WRAP(fsync, "fsync",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, uv_fs_cb cb),
	(loop, req, file, cb), "fd %d", file)
FS_WRAP(ftruncate, "ftruncate",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, int64_t offset,
	 uv_fs_cb cb),
	(loop, req, file, offset, cb), "fd %d", file)
FS_WRAP(access, "access",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int mode,
	 uv_fs_cb cb),
	(loop, req, path, mode, cb), FS_PATH_LABEL(path))
FS_WRAP(readlink, "readlink",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(realpath, "realpath",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(copyfile, "copyfile",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, const char *new_path,
	 int flags, uv_fs_cb cb),
	(loop, req, path, new_path, flags, cb), "%s to %s", path ? path : "?",
	new_path ? new_path : "?")
FS_WRAP(chmod, "chmod",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int mode,
	 uv_fs_cb cb),
	(loop, req, path, mode, cb), FS_PATH_LABEL(path))
