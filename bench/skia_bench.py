#!/usr/bin/env python3
"""Skia's CPU rasterizer on Loopsmith's scenes: the anchor `make bench` measures against.

Each scene is drawn from the same math as the effect it mirrors (Sources/Effects), with Skia's
own filters for blurs, shadows and color matrices, at 1 point = 1 pixel, premultiplied 8-bit
RGBA with no color space, and every frame read back into memory (a frame ready for an encoder).
A multi-core figure runs one process a core, each drawing its own frames; the result is the sum of
each process's frames a second, counted from the moment every process is ready. A process draws
frames for about `--seconds` seconds (at least `--frames`).

    skia_bench.py --list
    skia_bench.py SCENE [--size 1080x1920] [--processes 2] [--seconds 4] [--frames 2]

prints one JSON object: {"scene", "size", "processes", "frames", "fps"}. A benchmark helper, run
by loopsmith-bench; not part of the product.
"""

import argparse
import json
import math
import multiprocessing as mp
import sys
import time

import numpy as np
import skia

TAU = 2 * math.pi


def rgb(r, g, b):
    return (r / 255, g / 255, b / 255)


# The system colors the effects use (dark appearance).
PINK, PURPLE, BLUE = rgb(255, 55, 95), rgb(219, 52, 242), rgb(0, 145, 255)
TEAL, INDIGO, CYAN = rgb(0, 210, 224), rgb(109, 124, 255), rgb(60, 211, 254)
ORANGE = rgb(255, 146, 48)
WHITE, BLACK = (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)


def argb(color, alpha=1.0):
    """An 8-bit ARGB int, which Skia's gradient and vertex calls take."""
    q = lambda v: int(min(max(v, 0.0), 1.0) * 255 + 0.5)
    return (q(alpha) << 24) | (q(color[0]) << 16) | (q(color[1]) << 8) | q(color[2])


def solid(color, alpha=1.0, blend=None):
    p = skia.Paint(AntiAlias=True)
    p.setColor4f(skia.Color4f(color[0], color[1], color[2], alpha))
    if blend is not None:
        p.setBlendMode(blend)
    return p


def stroked(color, alpha, width):
    p = solid(color, alpha)
    p.setStyle(skia.Paint.kStroke_Style)
    p.setStrokeWidth(width)
    p.setStrokeMiter(10)
    return p


def shaded(shader, blend=None):
    p = skia.Paint(AntiAlias=True)
    p.setShader(shader)
    if blend is not None:
        p.setBlendMode(blend)
    return p


PREMUL = int(skia.GradientShader.kInterpolateColorsInPremul_Flag)


def radial(cx, cy, r, stops):
    """stops: [(position, color, alpha)]."""
    return skia.GradientShader.MakeRadial(
        skia.Point(cx, cy), max(r, 1e-6), [argb(c, a) for _, c, a in stops],
        [s for s, _, _ in stops], skia.TileMode.kClamp, PREMUL)


def linear(x0, y0, x1, y1, colors):
    return skia.GradientShader.MakeLinear(
        [skia.Point(x0, y0), skia.Point(x1, y1)], [argb(c) for c in colors], None,
        skia.TileMode.kClamp, PREMUL)


def noise(index, salt):
    """The effects' hash: the fractional part of sin(i * 127.1 + salt * 311.7) * 43758.5453."""
    v = math.sin(index * 127.1 + salt * 311.7) * 43758.5453
    return v - math.floor(v)


def wrap(x, travel):
    return math.fmod(x, travel) % travel if travel > 0 else 0.0


def blurred(c, sigma, draw, alpha=1.0):
    """A layer drawn by `draw`, blurred (transparent outside), composited with `alpha`."""
    p = skia.Paint()
    p.setAlphaf(alpha)
    p.setImageFilter(skia.ImageFilters.Blur(sigma, sigma, skia.TileMode.kDecal))
    c.saveLayer(None, p)
    draw(c)
    c.restore()


# --- Color Orbs: five screen-blended radial gradients over a dark base -------------------------

def color_orbs(c, w, h, t):
    time = t * 0.4
    c.drawRect(skia.Rect.MakeWH(w, h), solid((0.05, 0.04, 0.13)))
    for i, color in enumerate([PINK, PURPLE, BLUE, TEAL, ORANGE]):
        x = (0.5 + 0.42 * math.sin(time * (0.5 + noise(i, 1) * 0.5) + noise(i, 2) * TAU)) * w
        y = (0.5 + 0.42 * math.cos(time * (0.4 + noise(i, 3) * 0.5) + noise(i, 4) * TAU)) * h
        r = max(w, h) * (0.34 + noise(i, 5) * 0.14)
        g = radial(x, y, r, [(0, color, 0.9), (0.5, color, 0.45), (1, color, 0)])
        c.drawOval(skia.Rect.MakeLTRB(x - r, y - r, x + r, y + r), shaded(g, skia.BlendMode.kScreen))



# --- Aurora: a 3x3 mesh gradient, as a dense Gouraud triangle mesh ------------------------------

MESH_STEPS = 24  # sub-divisions of each of the four patches
_s = np.linspace(0, 1, MESH_STEPS + 1)
# Cubic Hermite basis (value at 0, value at 1, tangent at 0, tangent at 1) at each step.
HERMITE = np.stack([2 * _s**3 - 3 * _s**2 + 1, -2 * _s**3 + 3 * _s**2, _s**3 - 2 * _s**2 + _s, _s**3 - _s**2])
_n = 2 * MESH_STEPS + 1
_quads = np.arange(_n * _n).reshape(_n, _n)[:-1, :-1].ravel()
MESH_INDICES = np.stack([_quads, _quads + 1, _quads + _n, _quads + 1, _quads + _n + 1, _quads + _n], 1).ravel().tolist()


def tangents(g, axis):
    """Catmull-Rom tangents of a 3x3 grid along an axis, one-sided at the border."""
    g = np.moveaxis(g, axis, 0)
    t = np.stack([g[1] - g[0], (g[2] - g[0]) / 2, g[2] - g[1]])
    return np.moveaxis(t, 0, axis)


def dense(g):
    """The 3x3 grid `g` (rows, columns, k) interpolated bicubically onto a (2n+1)^2 grid."""
    tu, tv = tangents(g, 1), tangents(g, 0)
    out = np.empty((_n, _n, g.shape[2]))
    for row in range(2):
        for col in range(2):
            corners = lambda a: np.array([[a[row, col], a[row + 1, col]], [a[row, col + 1], a[row + 1, col + 1]]])
            geometry = np.zeros((4, 4, g.shape[2]))  # [u basis, v basis]; no twist
            geometry[:2, :2] = corners(g)
            geometry[2:, :2] = corners(tu)
            geometry[:2, 2:] = corners(tv)
            block = np.einsum('au,abk,bv->vuk', HERMITE, geometry, HERMITE)
            out[row * MESH_STEPS:(row + 1) * MESH_STEPS + 1, col * MESH_STEPS:(col + 1) * MESH_STEPS + 1] = block
    return out


def aurora(c, w, h, t):
    time = t * 0.6
    wave = lambda speed, phase: 0.5 + math.sin(time * speed + phase) * 0.2
    points = np.array([
        [(0, 0), (wave(0.8, 2.1), 0), (1, 0)],
        [(0, wave(0.9, 0)), (wave(1.0, 0.7), wave(0.6, 4.2)), (1, wave(0.7, 1.3))],
        [(0, 1), (wave(1.1, 3.4), 1), (1, 1)]], dtype=np.float64)
    colors = np.array([
        [INDIGO, PURPLE, INDIGO], [TEAL, PURPLE, INDIGO], [PURPLE, INDIGO, TEAL]], dtype=np.float64)
    xy = dense(points).reshape(-1, 2) * (w, h)
    q = (np.clip(dense(colors), 0, 1).reshape(-1, 3) * 255 + 0.5).astype(np.int64)
    ints = ((255 << 24) | (q[:, 0] << 16) | (q[:, 1] << 8) | q[:, 2]).tolist()
    vertices = skia.Vertices(skia.Vertices.kTriangles_VertexMode,
                             [skia.Point(float(x), float(y)) for x, y in xy], None, ints, MESH_INDICES)
    c.drawRect(skia.Rect.MakeWH(w, h), solid(INDIGO))
    c.drawVertices(vertices, skia.Paint(), skia.BlendMode.kDst)


# --- Weather ------------------------------------------------------------------------------------

SKIES = {
    'clearDay': ((0.11, 0.38, 0.80), (0.46, 0.72, 0.96)),
    'clearNight': ((0.02, 0.03, 0.13), (0.10, 0.13, 0.34)),
    'cloudy': ((0.33, 0.40, 0.52), (0.62, 0.68, 0.76)),
    'rain': ((0.14, 0.19, 0.27), (0.33, 0.40, 0.49)),
    'thunderstorm': ((0.06, 0.07, 0.13), (0.20, 0.22, 0.34)),
    'snow': ((0.36, 0.44, 0.58), (0.70, 0.76, 0.85)),
    'fog': ((0.46, 0.49, 0.56), (0.70, 0.72, 0.75)),
}
X, Y, SIZE, SPEED, PHASE, OFFSET, EXTRA = range(1, 8)  # the hash's salts


def sun(c, w, h, t):
    d = 520.0
    left = w + max(0.0, d - w) / 2 - d + d * 0.32
    top = -max(0.0, d - h) / 2 - d * 0.32
    cx, cy, radius = left + d / 2, top + d / 2, d / 2

    def rays(lc):
        lc.translate(cx, cy)
        lc.rotate(math.degrees(t * 0.05))
        for ray in range(14):
            angle, spread = ray / 14 * TAU, 0.07 + noise(ray, SIZE) * 0.05
            length = radius * (0.7 + noise(ray, EXTRA) * 0.3)
            wedge = skia.Path()
            wedge.moveTo(0, 0)
            wedge.lineTo(math.cos(angle - spread) * length, math.sin(angle - spread) * length)
            wedge.lineTo(math.cos(angle + spread) * length, math.sin(angle + spread) * length)
            wedge.close()
            lc.drawPath(wedge, solid(WHITE, 0.10 + 0.06 * math.sin(t * 0.8 + ray)))

    c.save()
    c.clipRect(skia.Rect.MakeXYWH(left, top, d, d), skia.ClipOp.kIntersect, True)
    blurred(c, 12, rays)
    c.restore()
    glow = radial(cx, cy, radius * 0.56, [(0, WHITE, 0.9), (0.5, (1.0, 0.93, 0.7), 0.45), (1, BLACK, 0)])
    c.drawOval(skia.Rect.MakeLTRB(cx - radius, cy - radius, cx + radius, cy + radius), shaded(glow))


def stars(c, w, h, t):
    for i in range(120):
        x, y, r = noise(i, X) * w, noise(i, Y) * h * 0.7, 0.5 + noise(i, SIZE) * 1.3
        twinkle = 0.55 + 0.45 * math.sin(t * (0.8 + noise(i, SPEED) * 1.6) + i)
        c.drawOval(skia.Rect.MakeLTRB(x - r, y - r, x + r, y + r), solid(WHITE, twinkle))


def clouds(c, w, h, t, color, alpha):
    width = w * 0.9
    shapes = []
    for i in range(7):
        band = i % 3
        x = wrap(noise(i, X) * (w + width) + t * (8 + band * 7), w + width) - width
        y = h * (0.05 + band * 0.12) + noise(i, Y) * 40
        cloud = skia.Path()
        for puff in range(4):
            k = i * 4 + puff
            pw = width * (0.35 + noise(k, SIZE) * 0.25)
            cloud.addOval(skia.Rect.MakeXYWH(x + width * puff * 0.18, y + noise(k, OFFSET) * 36 - 18, pw, pw * 0.42))
        shapes.append(cloud)
    paint = solid(color, alpha)
    blurred(c, 28, lambda lc: [lc.drawPath(s, paint) for s in shapes])


def rain(c, w, h, t, drops):
    near, far = skia.Path(), skia.Path()
    for i in range(drops):
        depth = 1.0 if i % 3 == 0 else 0.6
        y = wrap(noise(i, Y) * (h + 60) + t * 700 * depth, h + 60) - 30
        x = noise(i, X) * (w + 40) - 20
        path = near if i % 3 == 0 else far
        path.moveTo(x, y)
        path.lineTo(x - 18 * depth * 0.15, y + 18 * depth)
    c.drawPath(far, stroked(WHITE, 0.22, 1))
    c.drawPath(near, stroked(WHITE, 0.5, 1.4))
    for i in range(drops // 4):
        phase = wrap(t * 1.6 + noise(i, PHASE), 1)
        if phase < 0.3:
            grown = phase / 0.3
            x, y, sw = noise(i, OFFSET) * w, h - 8 - noise(i, EXTRA) * 70, 4 + grown * 14
            c.drawOval(skia.Rect.MakeXYWH(x - sw / 2, y - sw * 0.12, sw, sw * 0.24), stroked(WHITE, 0.4 * (1 - grown), 1))


def lightning(c, w, h, t):
    moment = wrap(t, 6.0)
    flash = 0.0
    for start, length in ((0.4, 0.18), (0.75, 0.22)):
        if start <= moment < start + length:
            flash = math.sin(math.pi * (moment - start) / length)
    if flash <= 0:
        return
    c.drawRect(skia.Rect.MakeWH(w, h), solid(WHITE, flash * 0.45))
    if flash <= 0.3:
        return
    cycle = int(t // 6.0)
    x, y = w * (0.2 + noise(cycle, X) * 0.6), 0.0
    bolt = skia.Path()
    bolt.moveTo(x, y)
    for step in range(9):
        x += (noise(cycle * 10 + step, OFFSET) - 0.5) * 60
        y += h * 0.065
        bolt.lineTo(x, y)
    blurred(c, 6, lambda lc: lc.drawPath(bolt, stroked((0.75, 0.8, 1.0), flash, 6)))
    c.drawPath(bolt, stroked(WHITE, flash, 2))


def snow(c, w, h, t):
    near, far = skia.Path(), skia.Path()
    for i in range(130):
        depth = 1.0 if i % 3 == 0 else 0.5
        y = wrap(noise(i, Y) * (h + 20) + t * 50 * depth, h + 20) - 10
        x = noise(i, X) * w + math.sin(t * (0.5 + noise(i, SPEED)) + noise(i, PHASE) * TAU) * 14 * depth
        r = (1.3 + noise(i, SIZE) * 2) * depth
        (near if i % 3 == 0 else far).addOval(skia.Rect.MakeLTRB(x - r, y - r, x + r, y + r))
    c.drawPath(far, solid(WHITE, 0.55))
    c.drawPath(near, solid(WHITE, 0.9))


def fog(c, w, h, t):
    width = w * 1.6
    bands = []
    for i in range(8):
        direction = 1 if i % 2 == 0 else -1
        x = wrap(noise(i, X) * (w + width) + t * (5 + i * 2) * direction, w + width) - width
        bands.append(skia.Rect.MakeXYWH(x, h * (0.18 + i * 0.1), width, h * 0.14))
    paint = solid(WHITE, 0.5)
    blurred(c, 30, lambda lc: [lc.drawOval(b, paint) for b in bands])


def weather(kind):
    def draw(c, w, h, t):
        top, bottom = SKIES[kind]
        c.drawRect(skia.Rect.MakeWH(w, h), shaded(linear(w / 2, 0, w / 2, h, [top, bottom])))
        if kind == 'clearDay':
            sun(c, w, h, t)
        elif kind == 'clearNight':
            stars(c, w, h, t)
        elif kind == 'cloudy':
            clouds(c, w, h, t, WHITE, 0.5)
        elif kind == 'rain':
            clouds(c, w, h, t, WHITE, 0.25)
            rain(c, w, h, t, 110)
        elif kind == 'thunderstorm':
            clouds(c, w, h, t, BLACK, 0.5)
            lightning(c, w, h, t)
            rain(c, w, h, t, 170)
        elif kind == 'snow':
            snow(c, w, h, t)
        else:
            fog(c, w, h, t)
    return draw


# --- Blob Morph Loader: a morphing blob with a blurred glow -------------------------------------

def loader(c, w, h, t):
    cx, cy, base = w / 2, h / 2, min(w, h) * 0.31
    points = []
    for i in range(16):
        a = i / 16 * TAU
        r = base * (1 + 0.16 * math.sin(2 * a + t * 1.4) + 0.10 * math.sin(3 * a - t * 1.1) + 0.06 * math.sin(5 * a + t * 0.7))
        points.append((cx + math.cos(a) * r, cy + math.sin(a) * r))
    middle = lambda p, q: ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
    blob = skia.Path()
    blob.moveTo(*middle(points[-1], points[0]))
    for i, p in enumerate(points):
        blob.quadTo(p[0], p[1], *middle(p, points[(i + 1) % 16]))
    blob.close()
    reach = w * 0.4
    ox, oy = math.cos(t * 0.6) * reach, math.sin(t * 0.6) * reach
    paint = shaded(linear(cx - ox, cy - oy, cx + ox, cy + oy, [PINK, PURPLE, INDIGO]))
    blurred(c, w * 0.08, lambda lc: lc.drawPath(blob, paint), alpha=0.55)
    c.drawPath(blob, paint)


# --- Voice orb (idle): a disk with blurred blobs, a light, a shadow and a saturation matrix -----

def circle_path(cx, cy, r):
    p = skia.Path()
    p.addOval(skia.Rect.MakeLTRB(cx - r, cy - r, cx + r, cy + r))
    return p


def voice_orb(c, w, h, t):
    energy, saturation = 0.1, 0.6  # idle
    scale = 0.86 + 0.14 * energy
    s = saturation
    matrix = [.213 + .787 * s, .715 - .715 * s, .072 - .072 * s, 0, 0,
              .213 - .213 * s, .715 + .285 * s, .072 - .072 * s, 0, 0,
              .213 - .213 * s, .715 - .715 * s, .072 + .928 * s, 0, 0,
              0, 0, 0, 1, 0]
    outer = skia.Paint()
    outer.setColorFilter(skia.ColorFilters.Matrix(matrix))
    c.saveLayer(None, outer)
    c.translate(w / 2, h / 2)
    c.scale(scale, scale)
    c.translate(-w / 2, -h / 2)
    shadow = skia.Paint()
    shadow.setImageFilter(skia.ImageFilters.DropShadow(0, 0, 30, 30, argb(BLUE, 0.25 + 0.45 * energy)))
    c.saveLayer(None, shadow)
    radius, cx, cy = min(w, h) / 2, w / 2, h / 2
    disk = circle_path(cx, cy, radius)
    c.save()
    c.clipPath(disk, skia.ClipOp.kIntersect, True)
    c.drawPath(disk, solid(BLUE))
    colors = [BLUE, PURPLE, PINK, CYAN]
    for i, color in enumerate(colors):
        turns = t * (0.3 if i % 2 == 0 else -0.2) + i / len(colors)
        reach = 0.2 + 0.3 * energy
        bx, by = cx + math.cos(turns * TAU) * reach * radius, cy + math.sin(turns * TAU) * reach * radius
        blob = circle_path(bx, by, radius * 0.6)
        blurred(c, radius * 0.28, lambda lc, p=blob, k=color: lc.drawPath(p, solid(k)))
    light = radial(cx - radius * 0.25, cy - radius * 0.4, radius * 1.1, [(0, WHITE, 0.45), (1, BLACK, 0)])
    c.drawPath(disk, shaded(light))
    c.restore()
    c.restore()
    c.restore()


SCENES = {
    'color-orbs': (color_orbs, True),
    'aurora-mesh': (aurora, True),
    'blob-morph-loader': (loader, False),
    'voice-orb': (voice_orb, False),
}
for _kind in SKIES:
    SCENES['weather ' + _kind] = (weather(_kind), True)


def render_frames(scene, width, height, frames, seconds, ready, go, out):
    draw, opaque = SCENES[scene]
    info = skia.ImageInfo.Make(width, height, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
    surface = skia.Surface.MakeRaster(info)
    read = skia.ImageInfo.Make(width, height, skia.kRGBA_8888_ColorType,
                               skia.kPremul_AlphaType if opaque else skia.kUnpremul_AlphaType)
    pixels = np.zeros((height, width, 4), np.uint8)

    def frame(t):
        canvas = surface.getCanvas()
        canvas.clear(skia.Color4f(0, 0, 0, 0))
        canvas.save()
        draw(canvas, float(width), float(height), t)
        canvas.restore()
        if not surface.readPixels(read, pixels, width * 4, 0, 0):
            raise RuntimeError('readPixels failed')

    frame(0.0)  # warm up (shader and blitter caches)
    ready.release()
    go.wait()
    start, count = time.perf_counter(), 0
    while count < frames or time.perf_counter() - start < seconds:
        frame(1.0 + count / 30)
        count += 1
    out.put((count, time.perf_counter() - start))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('scene', nargs='?')
    ap.add_argument('--size', default='1080x1920')
    ap.add_argument('--processes', type=int, default=1)
    ap.add_argument('--frames', type=int, default=2, help='frames each process draws at least')
    ap.add_argument('--seconds', type=float, default=4, help='about how long each process draws')
    ap.add_argument('--list', action='store_true')
    a = ap.parse_args()
    if a.list:
        print('\n'.join(SCENES))
        return 0
    if a.scene not in SCENES:
        ap.error('unknown scene %r (have: %s)' % (a.scene, ', '.join(SCENES)))
    width, height = (int(v) for v in a.size.split('x'))
    ready, go, out = mp.Semaphore(0), mp.Event(), mp.Queue()
    workers = [mp.Process(target=render_frames, args=(a.scene, width, height, a.frames, a.seconds, ready, go, out))
               for _ in range(a.processes)]
    for p in workers:
        p.start()
    for _ in workers:
        ready.acquire()
    go.set()
    results = [out.get() for _ in workers]
    for p in workers:
        p.join()
    if any(p.exitcode != 0 for p in workers):
        return 1
    fps = sum(count / elapsed for count, elapsed in results)
    frames = sum(count for count, _ in results)
    print(json.dumps({'scene': a.scene, 'size': a.size, 'processes': a.processes, 'frames': frames, 'fps': fps}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
