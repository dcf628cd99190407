#ifndef LOOPSMITH_CLIBAV_SHIM_H
#define LOOPSMITH_CLIBAV_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/crc.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/audio_fifo.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// O_TMPFILE is a macro Swift does not import (glibc defines it from __O_TMPFILE, only under
// _GNU_SOURCE); the C compiler spells it for this architecture. 0 where neither is defined: the
// caller then creates its temporary by name.
static inline int clibav_o_tmpfile(void) {
#if defined(O_TMPFILE)
  return O_TMPFILE;
#elif defined(__O_TMPFILE)
  return __O_TMPFILE;
#else
  return 0;
#endif
}

// SVT-AV1 1.4, run by root, puts the thread that opens it and every thread it starts on SCHED_FIFO
// at priority 99 (sched_setscheduler; it goes on when that fails). A real-time thread is never
// preempted by ordinary ones: on a busy machine the encoder starves everything else, and threads
// and processes started later from that thread (render threads, a browser) inherit the policy.
// Dropping CAP_SYS_NICE from the calling thread's effective set before opening the encoder makes
// those calls fail with EPERM; the threads it starts inherit the dropped capability. Returns 0,
// or -1 with errno (docs/ENCODING.md, Codecs).
static inline int clibav_refuse_realtime_priority(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  if (syscall(SYS_capget, &header, data) != 0) return -1;
  if (!(data[CAP_TO_INDEX(CAP_SYS_NICE)].effective & CAP_TO_MASK(CAP_SYS_NICE))) return 0;
  data[CAP_TO_INDEX(CAP_SYS_NICE)].effective &= ~CAP_TO_MASK(CAP_SYS_NICE);
  return (int)syscall(SYS_capset, &header, data);
}

// Function-like macros never reach Swift; these do.
static inline int clibav_error(int posix) { return AVERROR(posix); }
static const int clibav_eof = AVERROR_EOF;
static const int clibav_exit = AVERROR_EXIT;
static const int clibav_invalid_data = AVERROR_INVALIDDATA;
static const int64_t clibav_nopts = AV_NOPTS_VALUE;
static inline unsigned clibav_tag(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }

// Files Loopsmith opened itself, read and written by libav through their descriptors, so no name
// is ever opened twice (a second open could find a different file swapped in). Each context keeps
// its own offset (pread/pwrite), so several may share one descriptor. Free with clibav_fd_io_free,
// never avio_close (which would take the opaque for a URLContext).
// A reading context may carry `interrupted`, asked before every read: once it answers nonzero
// (a stop signal arrived) every read fails with AVERROR_EXIT, so no demuxer reads on past a stop.
typedef struct { int fd; int64_t position; int (*interrupted)(void *); } clibav_fd_state;

static inline int clibav_fd_read(void *opaque, uint8_t *buf, int size) {
  clibav_fd_state *s = (clibav_fd_state *)opaque;
  if (s->interrupted && s->interrupted(NULL)) return AVERROR_EXIT;
  for (;;) {
    ssize_t n = pread(s->fd, buf, (size_t)size, (off_t)s->position);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR_EOF;
    s->position += n;
    return (int)n;
  }
}

static inline int clibav_fd_write(void *opaque, uint8_t *buf, int size) {
  clibav_fd_state *s = (clibav_fd_state *)opaque;
  int done = 0;
  while (done < size) {
    ssize_t n = pwrite(s->fd, buf + done, (size_t)(size - done), (off_t)s->position);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR(EIO);
    done += (int)n;
    s->position += n;
  }
  return size;
}

static inline int64_t clibav_fd_seek(void *opaque, int64_t offset, int whence) {
  clibav_fd_state *s = (clibav_fd_state *)opaque;
  struct stat info;
  int64_t target;
  whence &= ~AVSEEK_FORCE;
  if (whence == AVSEEK_SIZE || whence == SEEK_END) {
    if (fstat(s->fd, &info) != 0) return AVERROR(errno);
    if (whence == AVSEEK_SIZE) return (int64_t)info.st_size;
    target = (int64_t)info.st_size + offset;
  } else if (whence == SEEK_SET) {
    target = offset;
  } else if (whence == SEEK_CUR) {
    target = s->position + offset;
  } else {
    return AVERROR(EINVAL);
  }
  if (target < 0) return AVERROR(EINVAL);
  s->position = target;
  return target;
}

/// An AVIOContext over `fd` (which stays open and owned by the caller), or NULL without memory.
static inline AVIOContext *clibav_fd_io_alloc(int fd, int writable) {
  const int size = 1 << 16;
  clibav_fd_state *state = (clibav_fd_state *)av_mallocz(sizeof(clibav_fd_state));
  unsigned char *buffer = (unsigned char *)av_malloc(size);
  AVIOContext *pb = NULL;
  if (state && buffer) {
    state->fd = fd;
    pb = avio_alloc_context(buffer, size, writable, state, clibav_fd_read, writable ? clibav_fd_write : NULL, clibav_fd_seek);
  }
  if (!pb) {
    av_free(state);
    av_free(buffer);
  }
  return pb;
}

/// A reading AVIOContext over `fd` whose reads end with AVERROR_EXIT once `interrupted` answers
/// nonzero; NULL without memory.
static inline AVIOContext *clibav_fd_io_alloc_reading(int fd, int (*interrupted)(void *)) {
  AVIOContext *pb = clibav_fd_io_alloc(fd, 0);
  if (pb) ((clibav_fd_state *)pb->opaque)->interrupted = interrupted;
  return pb;
}

/// Flushes and frees a context made by clibav_fd_io_alloc (not its descriptor); the first write
/// error it met, or 0.
static inline int clibav_fd_io_free(AVIOContext **pb) {
  int error = 0;
  if (!pb || !*pb) return 0;
  if ((*pb)->write_flag) avio_flush(*pb);
  error = (*pb)->error;
  av_freep(&(*pb)->opaque);
  av_freep(&(*pb)->buffer);
  avio_context_free(pb);
  return error;
}

/// io_open for a muxer writing through clibav_fd_io_alloc: the only file it may open is its own
/// output, for reading (the MP4 muxer rereads it to move the index to the front).
static inline int clibav_fd_io_open_self(AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
  (void)options;
  if (!s->pb || !s->pb->opaque || !url || !s->url || strcmp(url, s->url) != 0 || (flags & AVIO_FLAG_WRITE)) return AVERROR(EPERM);
  avio_flush(s->pb);
  *pb = clibav_fd_io_alloc(((clibav_fd_state *)s->pb->opaque)->fd, 0);
  return *pb ? 0 : AVERROR(ENOMEM);
}

/// io_open for a demuxer reading through clibav_fd_io_alloc: no other file may be opened (a
/// playlist or reference naming /etc/passwd must not be followed).
static inline int clibav_io_open_none(AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
  (void)s; (void)pb; (void)url; (void)flags; (void)options;
  return AVERROR(EPERM);
}

static inline void clibav_fd_io_close(AVFormatContext *s, AVIOContext *pb) {
  (void)s;
  clibav_fd_io_free(&pb);
}

/// Makes `context` read or write through `pb` and open nothing else by name (see above).
static inline void clibav_use_fd_io(AVFormatContext *context, AVIOContext *pb, int output) {
  context->pb = pb;
  context->flags |= AVFMT_FLAG_CUSTOM_IO;
  context->io_open = output ? clibav_fd_io_open_self : clibav_io_open_none;
  context->io_close = clibav_fd_io_close;
}

#endif
