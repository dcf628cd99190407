// loopsmith-loop.js: plays a Loopsmith loop on a web page with no seam at the wrap, with its
// transparency, Reduce Motion and pausing where nobody sees it. No dependencies, no build step:
// load it as a classic script (<script src="loopsmith-loop.js">) or import it from a module
// (import './loopsmith-loop.js', or loopsmith-loop.mjs for named exports). docs/WEB-PLAYER.md says
// how it was measured in Chromium, Firefox and WebKitGTK.
//
//   <loopsmith-loop poster="orb.png">
//     <source src="orb-stacked.mp4" type="video/mp4" data-alpha="stacked">
//     <source src="orb.webm" type="video/webm" data-alpha="native">
//   </loopsmith-loop>
//
// A browser's <video loop> seeks back to 0 at the end, and at the seek it drops frame 0 or holds
// the last frame. This player decodes the MP4 itself with WebCodecs' VideoDecoder: the file is
// fetched once and read here (its samples are small), the samples are fed to the decoder over and
// over with timestamps that keep counting, and each animation frame shows frame
// floor(elapsed * fps) mod n from a few decoded frames kept ahead. The wrap is then one more
// step. Where WebCodecs or the codec is missing it falls back to <video loop> and says so in its
// `technique` attribute ("webcodecs" or "video-loop").
//
// Attributes (all optional):
//   src         one MP4 or WebM, instead of <source> children (with alpha="stacked" for a
//               stacked-alpha MP4)
//   poster      the Reduce Motion still (frame 0; `loopsmith render ... --poster`), also shown
//               until the first frame is decoded
//   background  "#rrggbb" under a transparent loop; none (the default) lets the page show through
//   prefer      source kinds to try first, space-separated: stacked, alpha, hevc, h264
//   techniques  the techniques allowed, in order: "webcodecs video-loop" (the default)
//   renderer    for stacked alpha: auto (WebGL, else canvas 2D), webgl or 2d
// Set by the element: technique ("webcodecs", "video-loop", or "none" when nothing plays),
// source (the chosen file), aria-hidden="true" unless the page set it.
// Sources: data-alpha="stacked" marks a stacked-alpha MP4 (colour on top, alpha below as
// limited-range grey, `--alpha stacked`), data-alpha="native" a VP9 WebM with alpha.
// Size it with CSS like an <img>; `object-fit` on the element (cover, contain) applies inside.
(function (root) {
  'use strict';

  // MARK: - MP4

  function readBoxes(view, start, end) {
    var list = [];
    while (start + 8 <= end) {
      var size = view.getUint32(start), type = fourCC(view, start + 4), header = 8;
      if (size === 1) {
        size = view.getUint32(start + 8) * 4294967296 + view.getUint32(start + 12);
        header = 16;
      } else if (size === 0) size = end - start;
      if (size < header || start + size > end) throw new Error('loopsmith-loop: MP4 box ' + type + ' overruns its parent');
      list.push({ type: type, start: start + header, end: start + size });
      start += size;
    }
    return list;
  }

  function fourCC(view, at) {
    return String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
  }

  function child(view, box, type) {
    var all = readBoxes(view, box.start, box.end);
    for (var i = 0; i < all.length; i++) if (all[i].type === type) return all[i];
    return null;
  }

  function path(view, box, types) {
    for (var i = 0; box && i < types.length; i++) box = child(view, box, types[i]);
    return box;
  }

  function hex(n) { return (n < 16 ? '0' : '') + n.toString(16); }

  // The codec string WebCodecs wants, from the decoder configuration record.
  function codecString(entry, bytes, record) {
    if (entry === 'avc1' || entry === 'avc3') return entry + '.' + hex(bytes[record + 1]) + hex(bytes[record + 2]) + hex(bytes[record + 3]);
    var b = bytes, at = record;
    var space = b[at + 1] >> 6, tier = (b[at + 1] >> 5) & 1, profile = b[at + 1] & 31;
    var flags = ((b[at + 2] << 24) | (b[at + 3] << 16) | (b[at + 4] << 8) | b[at + 5]) >>> 0, reversed = 0;
    for (var i = 0; i < 32; i++) reversed = (reversed * 2) + ((flags >>> i) & 1);
    var text = entry + '.' + (space ? 'ABC'[space - 1] : '') + profile + '.' + reversed.toString(16) + '.' +
      (tier ? 'H' : 'L') + b[at + 12];
    var constraints = [];
    for (var k = 6; k < 12; k++) constraints.push(b[at + k]);
    while (constraints.length && constraints[constraints.length - 1] === 0) constraints.pop();
    for (var c = 0; c < constraints.length; c++) text += '.' + constraints[c].toString(16);
    return text;
  }

  // The video track of an MP4 we wrote: codec, decoder description and every sample's place.
  function readMP4(buffer) {
    var view = new DataView(buffer), bytes = new Uint8Array(buffer);
    var top = readBoxes(view, 0, buffer.byteLength), moov = null;
    for (var i = 0; i < top.length; i++) if (top[i].type === 'moov') moov = top[i];
    if (!moov) throw new Error('loopsmith-loop: no moov box');
    var traks = readBoxes(view, moov.start, moov.end).filter(function (b) { return b.type === 'trak'; });
    for (var t = 0; t < traks.length; t++) {
      var hdlr = path(view, traks[t], ['mdia', 'hdlr']);
      if (!hdlr || fourCC(view, hdlr.start + 8) !== 'vide') continue;
      return readTrack(view, bytes, traks[t]);
    }
    throw new Error('loopsmith-loop: no video track');
  }

  function readTrack(view, bytes, trak) {
    var mdhd = path(view, trak, ['mdia', 'mdhd']);
    var timescale = view.getUint32(mdhd.start + (view.getUint8(mdhd.start) === 1 ? 20 : 12));
    var stbl = path(view, trak, ['mdia', 'minf', 'stbl']);
    var stsd = child(view, stbl, 'stsd');
    var entry = readBoxes(view, stsd.start + 8, stsd.end)[0];
    var width = view.getUint16(entry.start + 24), height = view.getUint16(entry.start + 26);
    var configs = readBoxes(view, entry.start + 78, entry.end), record = null;
    for (var i = 0; i < configs.length; i++) if (configs[i].type === 'avcC' || configs[i].type === 'hvcC') record = configs[i];
    if (!record) throw new Error('loopsmith-loop: ' + entry.type + ' has no avcC or hvcC');

    function table(type) { var b = child(view, stbl, type); return b ? { at: b.start + 8, count: view.getUint32(b.start + 4), box: b } : null; }
    var stts = table('stts'), ctts = table('ctts'), stsc = table('stsc'), stss = table('stss');
    var stco = table('stco'), co64 = table('co64'), stszBox = child(view, stbl, 'stsz');
    var fixedSize = view.getUint32(stszBox.start + 4), count = view.getUint32(stszBox.start + 8);
    var samples = [];
    var dts = 0, s = 0;
    for (var e = 0; e < stts.count; e++) {
      var n = view.getUint32(stts.at + e * 8), delta = view.getUint32(stts.at + e * 8 + 4);
      for (var k = 0; k < n && s < count; k++, s++) {
        samples.push({ dts: dts, cts: dts, duration: delta, key: !stss, offset: 0,
          size: fixedSize || view.getUint32(stszBox.start + 12 + s * 4) });
        dts += delta;
      }
    }
    if (ctts) {
      for (var c = 0, at = 0; c < ctts.count; c++) {
        var m = view.getUint32(ctts.at + c * 8), offset = view.getInt32(ctts.at + c * 8 + 4);
        for (var j = 0; j < m && at < samples.length; j++, at++) samples[at].cts += offset;
      }
    }
    if (stss) for (var x = 0; x < stss.count; x++) {
      var number = view.getUint32(stss.at + x * 4);
      if (number >= 1 && number <= samples.length) samples[number - 1].key = true;
    }
    var chunks = stco ? stco.count : co64.count;
    function chunkOffset(index) {
      return stco ? view.getUint32(stco.at + index * 4)
        : view.getUint32(co64.at + index * 8) * 4294967296 + view.getUint32(co64.at + index * 8 + 4);
    }
    for (var r = 0, next = 0; r < stsc.count; r++) {
      var first = view.getUint32(stsc.at + r * 12) - 1, perChunk = view.getUint32(stsc.at + r * 12 + 4);
      var last = r + 1 < stsc.count ? view.getUint32(stsc.at + (r + 1) * 12) - 1 : chunks;
      for (var ch = first; ch < last; ch++) {
        var place = chunkOffset(ch);
        for (var q = 0; q < perChunk && next < samples.length; q++, next++) {
          samples[next].offset = place;
          place += samples[next].size;
        }
      }
    }
    for (var z = 0; z < samples.length; z++) {
      if (samples[z].offset + samples[z].size > bytes.length) throw new Error('loopsmith-loop: sample ' + z + ' lies past the end of the file');
    }
    // Frame i of the loop is the i-th sample in presentation order: edit lists and B-frame
    // offsets shift every cts alike and need not be read.
    var order = samples.map(function (sample, index) { return index; });
    order.sort(function (a, b) { return samples[a].cts - samples[b].cts; });
    for (var p = 0; p < order.length; p++) samples[order[p]].frame = p;
    var duration = dts;
    return {
      codec: codecString(entry.type, bytes, record.start), description: bytes.slice(record.start, record.end),
      width: width, height: height, timescale: timescale, frames: samples.length,
      fps: samples.length * timescale / duration, samples: samples, bytes: bytes
    };
  }

  // MARK: - Drawing

  var VERTEX = [
    'attribute vec2 position;',
    'varying vec2 uv;',
    'void main() {',
    '  uv = vec2(position.x * 0.5 + 0.5, 0.5 - position.y * 0.5);', // the canvas's top row samples the picture's
    '  gl_Position = vec4(position, 0.0, 1.0);',
    '}'
  ].join('\n');

  var FRAGMENT = [
    '#ifdef GL_FRAGMENT_PRECISION_HIGH',
    'precision highp float;',
    '#else',
    'precision mediump float;',
    '#endif',
    'uniform sampler2D picture;',
    'uniform vec4 background;', // premultiplied; alpha 0 leaves the canvas transparent
    'varying vec2 uv;',
    'void main() {',
    '  vec3 colour = texture2D(picture, vec2(uv.x, uv.y * 0.5)).rgb;',
    '  float alpha = texture2D(picture, vec2(uv.x, 0.5 + uv.y * 0.5)).r;',
    '  gl_FragColor = vec4(colour * alpha, alpha) + background * (1.0 - alpha);',
    '}'
  ].join('\n');

  function parseColour(text) {
    if (text == null || text === '') return [0, 0, 0, 0];
    var m = /^#([0-9a-f]{6})$/i.exec(String(text));
    if (!m) return [0, 0, 0, 0];
    var n = parseInt(m[1], 16);
    return [(n >> 16 & 255) / 255, (n >> 8 & 255) / 255, (n & 255) / 255, 1];
  }

  function compile(gl, type, source) {
    var shader = gl.createShader(type);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
    return shader;
  }

  // Stacked alpha in WebGL: one texture upload and one draw a frame; null without WebGL.
  function webglStacked(canvas, background) {
    var gl = canvas.getContext('webgl', { premultipliedAlpha: true, alpha: true, preserveDrawingBuffer: true, antialias: false });
    if (!gl) return null;
    var program = gl.createProgram();
    gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
    gl.useProgram(program);
    gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    var position = gl.getAttribLocation(program, 'position');
    gl.enableVertexAttribArray(position);
    gl.vertexAttribPointer(position, 2, gl.FLOAT, false, 0, 0);
    gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());
    // Nearest: each canvas pixel reads exactly its own two pixels, the halves never blend.
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.uniform1i(gl.getUniformLocation(program, 'picture'), 0);
    var bg = background;
    gl.uniform4f(gl.getUniformLocation(program, 'background'), bg[0] * bg[3], bg[1] * bg[3], bg[2] * bg[3], bg[3]);
    var scratch = null;
    return function draw(source) {
      gl.viewport(0, 0, canvas.width, canvas.height);
      try {
        gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, source);
      } catch (e) {
        // An engine that cannot upload a VideoFrame as a texture gets it through a 2D canvas.
        if (!scratch) scratch = document.createElement('canvas');
        scratch.width = canvas.width; scratch.height = canvas.height * 2;
        scratch.getContext('2d').drawImage(source, 0, 0, scratch.width, scratch.height);
        gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, scratch);
      }
      gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    };
  }

  // Stacked alpha in a 2D canvas: the frame drawn to a scratch canvas, the halves combined per pixel.
  function canvas2dStacked(canvas, background) {
    var out = canvas.getContext('2d');
    var scratch = document.createElement('canvas');
    var sc = scratch.getContext('2d', { willReadFrequently: true });
    return function draw(source) {
      var w = canvas.width, h = canvas.height;
      if (scratch.width !== w || scratch.height !== 2 * h) { scratch.width = w; scratch.height = 2 * h; }
      sc.drawImage(source, 0, 0, w, 2 * h);
      var both = sc.getImageData(0, 0, w, 2 * h).data;
      var image = out.createImageData(w, h), px = image.data, n = w * h * 4;
      var bgA = background[3], bgR = background[0] * 255, bgG = background[1] * 255, bgB = background[2] * 255;
      for (var i = 0; i < n; i += 4) {
        var a = both[n + i] / 255;
        if (bgA > 0) {
          px[i] = both[i] * a + bgR * (1 - a); px[i + 1] = both[i + 1] * a + bgG * (1 - a);
          px[i + 2] = both[i + 2] * a + bgB * (1 - a); px[i + 3] = 255;
        } else {
          px[i] = both[i]; px[i + 1] = both[i + 1]; px[i + 2] = both[i + 2]; px[i + 3] = both[n + i];
        }
      }
      out.putImageData(image, 0, 0);
    };
  }

  // What draws a decoded picture (a VideoFrame or a <video>) into `canvas`, and its name.
  function makeRenderer(canvas, stacked, background, wanted) {
    if (!stacked) {
      var g = canvas.getContext('2d');
      return { name: '2d', draw: function (source) { g.drawImage(source, 0, 0, canvas.width, canvas.height); } };
    }
    if (wanted !== '2d') {
      var gl = null;
      try { gl = webglStacked(canvas, background); } catch (e) { gl = null; }
      if (gl) return { name: 'webgl', draw: gl };
    }
    return { name: '2d', draw: canvas2dStacked(canvas, background) };
  }

  // MARK: - WebCodecs

  // Decoded frames kept ahead of the one on screen; the decoder holds a few more of its own.
  var AHEAD = 6;
  // Samples in the decoder at most: enough for any H.264 or HEVC reorder delay (16 frames).
  var IN_FLIGHT = 20;

  // The loop through VideoDecoder. `show(frame)` draws a VideoFrame (it is closed afterwards).
  function CodecLoop(movie, show) {
    var self = this;
    this.movie = movie;
    this.show = show;
    this.ring = [];            // decoded VideoFrames in presentation order, each with its .seq
    this.next = 0;             // the next sample to feed, in decode order
    this.cycle = 0;            // how many times the samples have been fed
    this.fed = 0;
    this.decoded = 0;          // frames the decoder has handed out
    this.drawn = 0;
    this.late = 0;             // animation frames that found their frame not yet decoded
    this.shown = -1;           // the sequence number on screen (cycle * frames + frame)
    this.start = null;         // animation time of sequence 0, in ms
    this.running = false;
    this.closed = false;
    this.frameMicroseconds = 1e6 / movie.fps;
    this.decoder = new root.VideoDecoder({
      output: function (frame) { self.received(frame); },
      error: function (e) { self.failed(e); }
    });
    this.decoder.configure(CodecLoop.config(movie));
    this.decoder.addEventListener && this.decoder.addEventListener('dequeue', function () { self.feed(); });
    this.tick = function (now) { self.frame(now); };
    this.feed();
  }

  CodecLoop.config = function (movie) {
    return { codec: movie.codec, description: movie.description, codedWidth: movie.width, codedHeight: movie.height };
  };

  // Whether this browser's VideoDecoder decodes `movie`.
  CodecLoop.supports = function (movie) {
    if (!root.VideoDecoder || !root.EncodedVideoChunk) return Promise.resolve(false);
    return root.VideoDecoder.isConfigSupported(CodecLoop.config(movie))
      .then(function (r) { return !!r.supported; }, function () { return false; });
  };

  CodecLoop.prototype.feed = function () {
    var movie = this.movie, n = movie.frames;
    while (!this.closed && this.ring.length < AHEAD && this.fed - this.decoded < IN_FLIGHT &&
      this.decoder.decodeQueueSize < 4) {
      var sample = movie.samples[this.next];
      // Timestamps keep counting across the wrap, so after the last sample the first is frame n.
      var seq = this.cycle * n + sample.frame;
      this.decoder.decode(new root.EncodedVideoChunk({
        type: sample.key ? 'key' : 'delta',
        timestamp: Math.round(seq * this.frameMicroseconds),
        duration: Math.round(this.frameMicroseconds),
        data: movie.bytes.subarray(sample.offset, sample.offset + sample.size)
      }));
      this.fed++;
      if (++this.next === n) { this.next = 0; this.cycle++; }
    }
  };

  CodecLoop.prototype.received = function (frame) {
    if (this.closed) { frame.close(); return; }
    frame.seq = Math.round(frame.timestamp / this.frameMicroseconds);
    this.decoded++;
    this.ring.push(frame);
    if (this.shown < 0 && this.ring.length === 1) this.present(frame.seq);  // the first picture, even paused
    this.feed();
  };

  CodecLoop.prototype.failed = function (e) {
    this.error = e;
    this.close();
    if (this.onerror) this.onerror(e);
  };

  // Shows sequence number `seq` if it is decoded, dropping the frames before it.
  CodecLoop.prototype.present = function (seq) {
    var best = -1;
    for (var i = 0; i < this.ring.length && this.ring[i].seq <= seq; i++) best = i;
    if (best < 0) { if (seq > this.shown) this.late++; return; }
    var frame = this.ring[best];
    if (frame.seq !== this.shown) {
      this.show(frame);
      this.shown = frame.seq;
      this.drawn++;
    }
    for (var k = 0; k < best; k++) this.ring[k].close();
    this.ring.splice(0, best);
    this.feed();
  };

  CodecLoop.prototype.frame = function (now) {
    this.requested = false;
    if (!this.running) return;
    if (this.start === null) {
      // A few frames decoded ahead before the clock starts, so a slow first decode is not late.
      if (this.ring.length < 3 && this.decoded < 3 + this.drawn) { this.request(); return; }
      // The clock starts at the picture on screen, so play (and resume) continues from it.
      this.start = now - Math.max(this.shown, 0) * 1000 / this.movie.fps;
    }
    var seq = Math.floor((now - this.start) * this.movie.fps / 1000);
    if (seq > this.shown) this.present(seq);
    // Behind a frame the ring does not yet hold (decoder late): the picture stays and counts as late.
    this.request();
  };

  // One animation frame asked for at a time, however often play and pause alternate.
  CodecLoop.prototype.request = function () {
    if (this.requested) return;
    this.requested = true;
    root.requestAnimationFrame(this.tick);
  };

  CodecLoop.prototype.play = function () {
    if (this.running || this.closed) return;
    this.running = true;
    this.start = null;
    this.request();
  };

  CodecLoop.prototype.pause = function () { this.running = false; };

  CodecLoop.prototype.close = function () {
    if (this.closed) return;
    this.closed = true;
    this.running = false;
    for (var i = 0; i < this.ring.length; i++) this.ring[i].close();
    this.ring = [];
    try { this.decoder.close(); } catch (e) { /* already closed by an error */ }
  };

  // MARK: - Choosing a source

  function kindOf(source) {
    var alpha = (source.alpha || '').toLowerCase(), type = (source.type || '').toLowerCase(), src = source.src || '';
    if (alpha === 'stacked') return 'stacked';
    if (alpha === 'native' || /webm/.test(type) || /\.webm(\?|#|$)/i.test(src)) return 'alpha';
    if (/hvc1|hev1/.test(type)) return 'hevc';
    return 'h264';
  }

  // WebKit (Safari, WebKitGTK) plays VP9 but shows no alpha, and says nothing about it; its
  // navigator.vendor is the only sign.
  function showsVP9Alpha() {
    return !(root.navigator && /Apple/.test(root.navigator.vendor || ''));
  }

  // The order in which sources are tried: transparent ones before opaque ones, stacked first since
  // WebCodecs plays it frame-exactly everywhere; `prefer` moves kinds to the front.
  function order(sources, prefer) {
    var rank = { stacked: 0, alpha: 1, hevc: 2, h264: 3 };
    var preferred = (prefer || '').split(/\s+/).filter(Boolean);
    return sources.map(function (s, i) { return { source: s, kind: kindOf(s), index: i }; }).sort(function (a, b) {
      var pa = preferred.indexOf(a.kind), pb = preferred.indexOf(b.kind);
      pa = pa < 0 ? 99 : pa; pb = pb < 0 ? 99 : pb;
      return pa - pb || rank[a.kind] - rank[b.kind] || a.index - b.index;
    });
  }

  function fetchBytes(url) {
    return root.fetch(url).then(function (r) {
      if (!r.ok) throw new Error('loopsmith-loop: ' + url + ': HTTP ' + r.status);
      return r.arrayBuffer();
    });
  }

  // The first source and technique that work here: { technique, source, kind, movie? }.
  function choose(sources, options) {
    options = options || {};
    var techniques = (options.techniques || 'webcodecs video-loop').split(/\s+/);
    var list = order(sources, options.prefer);
    var probe = document.createElement('video');
    function playable(entry) {
      var type = entry.source.type || (entry.kind === 'alpha' ? 'video/webm' : 'video/mp4');
      return probe.canPlayType(type) !== '';
    }
    var i = 0;
    function tryCodecs() {
      if (techniques.indexOf('webcodecs') < 0 || !root.VideoDecoder) return Promise.resolve(null);
      var candidates = list.filter(function (e) { return e.kind !== 'alpha'; });
      function step() {
        if (i >= candidates.length) return Promise.resolve(null);
        var entry = candidates[i++];
        return fetchBytes(entry.source.src).then(readMP4).then(function (movie) {
          return CodecLoop.supports(movie).then(function (ok) {
            return ok ? { technique: 'webcodecs', source: entry.source, kind: entry.kind, movie: movie } : step();
          });
        }, function () { return step(); });
      }
      return step();
    }
    return tryCodecs().then(function (found) {
      if (found || techniques.indexOf('video-loop') < 0) return found;
      for (var k = 0; k < list.length; k++) {
        var entry = list[k];
        if (entry.kind === 'alpha' && !showsVP9Alpha()) continue;
        if (playable(entry)) return { technique: 'video-loop', source: entry.source, kind: entry.kind };
      }
      return null;
    });
  }

  // MARK: - The element

  var STYLE = ':host{display:inline-block;overflow:hidden;position:relative}' +
    ':host([hidden]){display:none}' +
    'canvas,video,img{display:block;width:100%;height:100%;object-fit:inherit;object-position:inherit}' +
    '[data-off]{display:none}';

  var reducedMotion = root.matchMedia ? root.matchMedia('(prefers-reduced-motion: reduce)') : null;

  function listen(query, f) {
    if (!query) return;
    if (query.addEventListener) query.addEventListener('change', f); else query.addListener(f);
  }

  function unlisten(query, f) {
    if (!query) return;
    if (query.removeEventListener) query.removeEventListener('change', f); else query.removeListener(f);
  }

  var Base = root.HTMLElement || function () {};

  class LoopsmithLoopElement extends Base {
    constructor() {
      super();
      var shadow = this.attachShadow({ mode: 'open' });
      shadow.innerHTML = '<style>' + STYLE + '</style><img alt="" data-off><canvas data-off></canvas>';
      this.posterImage = shadow.querySelector('img');
      this.canvas = shadow.querySelector('canvas');
      this.video = null;
      this.loop = null;
      this.visible = true;       // on screen, as IntersectionObserver last said
      this.generation = 0;       // bumped on each start, so a stale choice is dropped
      var self = this;
      this.update = function () { self.apply(); };
    }

    static get observedAttributes() { return ['src', 'poster', 'prefer', 'techniques', 'background', 'renderer']; }

    // Test and diagnostics figures: frames decoded, drawn, and animation frames that found theirs late.
    get framesDecoded() { return this.loop ? this.loop.decoded : 0; }
    get framesDrawn() { return this.loop ? this.loop.drawn : 0; }
    get framesLate() { return this.loop ? this.loop.late : 0; }
    get technique() { return this.getAttribute('technique'); }
    get renderer() { return this.rendererName || null; }
    get reducedMotion() { return !!(reducedMotion && reducedMotion.matches); }
    // Whether the loop is moving now (not hidden, off screen, in Reduce Motion or without a source).
    get playing() { return !!this.moving; }

    get sources() {
      if (this.explicitSources) return this.explicitSources;
      var list = [];
      if (this.getAttribute('src')) list.push({ src: this.getAttribute('src'), type: '', alpha: this.getAttribute('alpha') || '' });
      var children = this.querySelectorAll('source');
      for (var i = 0; i < children.length; i++) {
        list.push({ src: children[i].getAttribute('src'), type: children[i].getAttribute('type') || '',
          alpha: children[i].getAttribute('data-alpha') || '' });
      }
      return list;
    }

    set sources(list) { this.explicitSources = list; if (this.isConnected) this.restart(); }

    connectedCallback() {
      if (!this.hasAttribute('aria-hidden')) this.setAttribute('aria-hidden', 'true');  // decorative
      var self = this;
      listen(reducedMotion, this.update);
      document.addEventListener('visibilitychange', this.update);
      if (root.IntersectionObserver && !this.observer) {
        this.observer = new root.IntersectionObserver(function (entries) {
          self.visible = entries[entries.length - 1].isIntersecting;
          self.apply();
        });
      }
      if (this.observer) this.observer.observe(this);
      // Children are parsed after the start tag: wait for them before reading <source>s.
      if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', function () { self.restart(); }, { once: true });
      } else root.setTimeout(function () { self.restart(); }, 0);
    }

    disconnectedCallback() {
      unlisten(reducedMotion, this.update);
      document.removeEventListener('visibilitychange', this.update);
      if (this.observer) this.observer.disconnect();
      this.stop();
    }

    attributeChangedCallback(name, old, value) {
      if (old === value) return;
      if (name === 'poster') {
        if (value) this.posterImage.src = value; else this.posterImage.removeAttribute('src');
        this.apply();
      } else if (this.started) this.restart();
    }

    stop() {
      this.generation++;
      if (this.loop) { this.loop.close(); this.loop = null; }
      if (this.video) { this.video.pause(); this.video.removeAttribute('src'); this.video.load(); this.video.remove(); this.video = null; }
      if (this.videoDraw) { this.videoDraw(); this.videoDraw = null; }
      this.moving = false;
      this.painted = false;
      this.stackedVideo = false;
      this.waiting = false;
    }

    restart() {
      this.stop();
      this.started = true;
      var generation = this.generation, self = this;
      if (this.getAttribute('poster')) this.posterImage.src = this.getAttribute('poster');
      // Reduce Motion with a poster: nothing is fetched or decoded until the preference changes.
      if (this.reducedMotion && this.getAttribute('poster')) { this.waiting = true; this.apply(); return; }
      this.apply();
      choose(this.sources, { prefer: this.getAttribute('prefer'), techniques: this.getAttribute('techniques') || undefined })
        .then(function (choice) {
          if (generation !== self.generation) return;
          if (!choice) { self.setAttribute('technique', 'none'); self.apply(); return; }
          self.setAttribute('technique', choice.technique);
          self.setAttribute('source', choice.source.src);
          if (choice.technique === 'webcodecs') self.startCodecs(choice); else self.startVideo(choice);
          self.apply();
        }, function () { if (generation === self.generation) self.setAttribute('technique', 'none'); });
    }

    startCodecs(choice) {
      var movie = choice.movie, stacked = choice.kind === 'stacked', self = this;
      this.canvas.width = movie.width;
      this.canvas.height = stacked ? movie.height / 2 : movie.height;
      var renderer = makeRenderer(this.canvas, stacked, parseColour(this.getAttribute('background')), this.getAttribute('renderer'));
      this.rendererName = renderer.name;
      this.loop = new CodecLoop(movie, function (frame) {
        renderer.draw(frame);
        if (!self.painted) { self.painted = true; self.apply(); }
      });
      var generation = this.generation;
      this.loop.onerror = function () {
        // A decoder that fails mid-way (a codec it claimed and cannot do): the plain video instead.
        if (generation !== self.generation) return;
        self.loop = null;
        self.setAttribute('technique', 'video-loop');
        self.startVideo(choice);
        self.apply();
      };
    }

    startVideo(choice) {
      var video = document.createElement('video'), self = this, stacked = choice.kind === 'stacked';
      video.muted = true; video.loop = true; video.playsInline = true; video.preload = 'auto';
      video.setAttribute('muted', ''); video.setAttribute('playsinline', ''); video.setAttribute('tabindex', '-1');
      video.disablePictureInPicture = true; video.disableRemotePlayback = true;
      video.src = choice.source.src;
      this.video = video;
      if (!stacked) {
        video.setAttribute('data-off', '');
        this.shadowRoot.appendChild(video);
        video.addEventListener('loadeddata', function () { self.painted = true; self.apply(); });
        return;
      }
      // Stacked alpha through <video>: each new picture drawn into the canvas with its alpha.
      video.style.display = 'none';
      this.shadowRoot.appendChild(video);
      var renderer = null, stopped = false;
      var draw = function () {
        if (stopped) return;
        if (video.readyState >= 2 && video.videoWidth) {
          if (!renderer) {
            self.canvas.width = video.videoWidth; self.canvas.height = video.videoHeight / 2;
            renderer = makeRenderer(self.canvas, true, parseColour(self.getAttribute('background')), self.getAttribute('renderer'));
            self.rendererName = renderer.name;
          }
          renderer.draw(video);
          if (!self.painted) { self.painted = true; self.apply(); }
        }
        if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(draw); else root.requestAnimationFrame(draw);
      };
      draw();
      this.videoDraw = function () { stopped = true; };
      this.stackedVideo = true;
    }

    // Plays or pauses, shows the poster or the picture, from what is true now.
    apply() {
      var still = this.reducedMotion;
      if (!still && this.waiting) { this.restart(); return; }
      var seen = document.visibilityState !== 'hidden' && this.visible;
      var move = !still && seen && (this.loop || this.video);
      var showPicture = !still && this.painted;
      var posterSet = !!this.getAttribute('poster');
      toggle(this.posterImage, posterSet && !showPicture);
      var videoShown = this.video && !this.stackedVideo;
      toggle(this.canvas, (showPicture || (still && !posterSet)) && !videoShown);
      if (this.video && !this.stackedVideo) toggle(this.video, showPicture);
      if (this.loop) { if (move) this.loop.play(); else this.loop.pause(); }
      if (this.video) {
        if (move) { var p = this.video.play(); if (p && p.catch) p.catch(function () {}); } else this.video.pause();
      }
      this.moving = !!move;
    }
  }

  function toggle(element, on) {
    if (on) element.removeAttribute('data-off'); else element.setAttribute('data-off', '');
  }

  // MARK: - API

  // A <loopsmith-loop> made in script: options.sources [{ src, type, alpha }], poster, background,
  // prefer, techniques, renderer. Append it where it should play.
  function create(options) {
    options = options || {};
    var element = document.createElement('loopsmith-loop');
    ['poster', 'background', 'prefer', 'techniques', 'renderer'].forEach(function (name) {
      if (options[name] != null) element.setAttribute(name, options[name]);
    });
    if (options.sources) element.explicitSources = options.sources;
    return element;
  }

  if (root.customElements && !root.customElements.get('loopsmith-loop')) {
    root.customElements.define('loopsmith-loop', LoopsmithLoopElement);
  }

  root.LoopsmithLoop = { create: create, choose: choose, readMP4: readMP4, Element: LoopsmithLoopElement, CodecLoop: CodecLoop };
})(typeof window !== 'undefined' ? window : globalThis);
