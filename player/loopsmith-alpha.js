// loopsmith-alpha.js: plays a Loopsmith stacked-alpha video (`loopsmith render ... --alpha stacked
// -o clip.mp4`) with its transparency, on any background. No dependencies.
//
// A stacked-alpha file is an ordinary H.264 or HEVC MP4 twice the picture's height: the colour
// (not premultiplied, black where alpha is 0) in the top half, alpha as grey in the bottom half
// (stored as limited-range luma 16 + 219 a, so the browser's own YUV to RGB conversion gives back
// R = G = B = alpha). Every <video> plays it: Safari and iOS, Chrome and Android, Firefox.
//
//   <video id="v" src="clip.mp4" muted autoplay loop playsinline hidden></video>
//   <canvas id="c"></canvas>
//   <script src="loopsmith-alpha.js"></script>
//   <script>LoopsmithAlpha.attach(document.getElementById('v'), document.getElementById('c'));</script>
//
// The canvas gets the picture's size (the video's width, half its height) and shows the picture
// with transparency: whatever is behind the canvas (CSS background, page, image) shows through.
// Options:
//   background: null (transparent, the default) or a CSS hex colour "#rrggbb" drawn under it
//   renderer:   "auto" (WebGL, else canvas 2D), "webgl" or "2d"
// attach() returns { renderer, draw(), stop() }: draw() draws the current frame now (it is also
// called for every frame the video shows), stop() ends the drawing loop.
(function (root) {
  'use strict';

  var VERTEX = [
    'attribute vec2 position;',
    'varying vec2 uv;',
    'void main() {',
    // The canvas's top row samples the video's top row: no flip needed.
    '  uv = vec2(position.x * 0.5 + 0.5, 0.5 - position.y * 0.5);',
    '  gl_Position = vec4(position, 0.0, 1.0);',
    '}'
  ].join('\n');

  var FRAGMENT = [
    '#ifdef GL_FRAGMENT_PRECISION_HIGH',
    'precision highp float;',
    '#else',
    'precision mediump float;',
    '#endif',
    'uniform sampler2D video;',
    'uniform vec4 background;', // premultiplied; alpha 0 leaves the canvas transparent
    'varying vec2 uv;',
    'void main() {',
    '  vec3 colour = texture2D(video, vec2(uv.x, uv.y * 0.5)).rgb;',
    '  float alpha = texture2D(video, vec2(uv.x, 0.5 + uv.y * 0.5)).r;',
    '  vec4 picture = vec4(colour * alpha, alpha);', // premultiplied, as the canvas composites
    '  gl_FragColor = picture + background * (1.0 - alpha);',
    '}'
  ].join('\n');

  function parseColour(text) {
    if (text == null) return [0, 0, 0, 0];
    var m = /^#([0-9a-f]{6})$/i.exec(String(text));
    if (!m) throw new Error('LoopsmithAlpha: background must be "#rrggbb" or null, got ' + text);
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

  // WebGL: one texture upload and one draw a frame. Null when WebGL is not available.
  function webglRenderer(canvas, background) {
    var gl = canvas.getContext('webgl', { premultipliedAlpha: true, alpha: true, preserveDrawingBuffer: true,
      antialias: false });
    if (!gl) return null;
    var program = gl.createProgram();
    gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
    gl.useProgram(program);
    var buffer = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
    var position = gl.getAttribLocation(program, 'position');
    gl.enableVertexAttribArray(position);
    gl.vertexAttribPointer(position, 2, gl.FLOAT, false, 0, 0);
    var texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    // Nearest: each canvas pixel reads exactly its own two video pixels, the halves never blend.
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.uniform1i(gl.getUniformLocation(program, 'video'), 0);
    var bg = background;
    gl.uniform4f(gl.getUniformLocation(program, 'background'), bg[0] * bg[3], bg[1] * bg[3], bg[2] * bg[3], bg[3]);
    return function draw(video) {
      gl.viewport(0, 0, canvas.width, canvas.height);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, video);
      gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    };
  }

  // Canvas 2D: the frame drawn to a scratch canvas, the halves combined pixel by pixel.
  function canvas2dRenderer(canvas, background) {
    var out = canvas.getContext('2d');
    var scratch = document.createElement('canvas');
    var sc = scratch.getContext('2d', { willReadFrequently: true });
    return function draw(video) {
      var w = canvas.width, h = canvas.height;
      if (scratch.width !== w || scratch.height !== 2 * h) { scratch.width = w; scratch.height = 2 * h; }
      sc.drawImage(video, 0, 0, w, 2 * h);
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

  function attach(video, canvas, options) {
    options = options || {};
    var background = parseColour(options.background);
    var wanted = options.renderer || 'auto';
    if (['auto', 'webgl', '2d'].indexOf(wanted) < 0) throw new Error('LoopsmithAlpha: renderer ' + wanted);
    var renderer = null, drawFrame = null, stopped = false;

    function size() {
      if (!video.videoWidth) return false;
      var w = video.videoWidth, h = Math.floor(video.videoHeight / 2);
      if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
      return true;
    }
    function setUp() {
      if (drawFrame) return;
      if (wanted !== '2d') drawFrame = webglRenderer(canvas, background);
      if (drawFrame) { renderer = 'webgl'; return; }
      if (wanted === 'webgl') throw new Error('LoopsmithAlpha: WebGL is not available');
      drawFrame = canvas2dRenderer(canvas, background);
      renderer = '2d';
    }
    function draw() {
      if (video.readyState < 2 || !size()) return false;
      setUp();
      drawFrame(video);
      return true;
    }
    function loop() {
      if (stopped) return;
      draw();
      if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(loop);
      else root.requestAnimationFrame(loop);
    }
    video.addEventListener('loadeddata', draw);
    video.addEventListener('seeked', draw);
    loop();
    return {
      get renderer() { setUp(); return renderer; },
      draw: draw,
      stop: function () { stopped = true; }
    };
  }

  root.LoopsmithAlpha = { attach: attach };
})(typeof window !== 'undefined' ? window : this);
