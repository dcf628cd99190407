#ifndef LOOPSMITH_CLIBAV_SHIM_H
#define LOOPSMITH_CLIBAV_SHIM_H

#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
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

// Function-like macros never reach Swift; these do.
static inline int clibav_error(int posix) { return AVERROR(posix); }
static const int clibav_eof = AVERROR_EOF;
static const int64_t clibav_nopts = AV_NOPTS_VALUE;
static inline unsigned clibav_tag(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }

#endif
