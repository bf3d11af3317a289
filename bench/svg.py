"""Minimal SVG line charts with the Python standard library only.

    line_chart(path, title, xlabel, ylabel, series, logx=False, logy=False)

`series` is a list of dicts {"label": str, "points": [(x, y), ...],
"dash": bool (optional)}; points with y None or <= 0 on a log axis are
skipped. Axes get "nice" ticks (decades on log axes, byte sizes when
xbytes=True).
"""
import math
from xml.sax.saxutils import escape

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def _bytes_label(v):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= div:
            q = v / div
            return f"{q:g} {unit}"
    return f"{v:g} B"


def _num_label(v):
    if v == 0:
        return "0"
    if abs(v) >= 1e6 or abs(v) < 0.01:
        return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")
    if abs(v) >= 1000 and v == int(v):
        return f"{int(v):,}"
    return f"{v:g}"


def _linear_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw),
               default=10 * mag)
    start = math.floor(lo / step) * step
    ticks = [round(start, 12)]
    while ticks[-1] < hi - step * 1e-9:
        ticks.append(round(ticks[-1] + step, 12))
    return ticks


def _log_ticks(lo, hi, base):
    a = math.floor(math.log(lo, base) + 1e-9)
    b = math.ceil(math.log(hi, base) - 1e-9)
    ticks = [base ** e for e in range(a, b + 1)]
    if len(ticks) > 9:  # thin out
        k = math.ceil(len(ticks) / 9)
        ticks = ticks[::k]
    return ticks


def line_chart(path, title, xlabel, ylabel, series, logx=False, logy=False,
               xbytes=False, ymin=None, width=720, height=420):
    longest = max((len(s["label"]) for s in series), default=10)
    mr = 60 + 7 * longest
    width += max(0, mr - 210)
    ml, mt, mb = 70, 40, 55
    pw, ph = width - ml - mr, height - mt - mb
    pts = [(x, y) for s in series for x, y in s["points"]
           if y is not None and (not logy or y > 0) and (not logx or x > 0)]
    if not pts:
        pts = [(1, 1), (2, 2)]
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    xbase = 4 if xbytes else 10
    if logx:
        xt = _log_ticks(min(xs), max(xs), xbase)
        x0, x1 = math.log(min(xt[0], min(xs))), math.log(max(xt[-1], max(xs)))
        fx = lambda x: ml + (math.log(x) - x0) / ((x1 - x0) or 1) * pw
    else:
        xt = _linear_ticks(min(0, min(xs)), max(xs))
        x0, x1 = xt[0], xt[-1]
        fx = lambda x: ml + (x - x0) / ((x1 - x0) or 1) * pw
    if logy:
        lo = min(ys) if ymin is None else ymin
        yt = _log_ticks(lo, max(ys), 10)
        y0, y1 = math.log(min(yt[0], lo)), math.log(max(yt[-1], max(ys)))
        fy = lambda y: mt + ph - (math.log(y) - y0) / ((y1 - y0) or 1) * ph
    else:
        yt = _linear_ticks(min(0, min(ys)) if ymin is None else ymin, max(ys))
        y0, y1 = yt[0], yt[-1]
        fy = lambda y: mt + ph - (y - y0) / ((y1 - y0) or 1) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{ml + pw / 2}" y="22" text-anchor="middle" '
           f'font-size="15">{escape(title)}</text>']
    for t in xt:
        x = fx(t)
        out.append(f'<line x1="{x:.1f}" y1="{mt}" x2="{x:.1f}" y2="{mt + ph}" '
                   'stroke="#e0e0e0"/>')
        lbl = _bytes_label(t) if xbytes else _num_label(t)
        out.append(f'<text x="{x:.1f}" y="{mt + ph + 16}" '
                   f'text-anchor="middle">{escape(lbl)}</text>')
    for t in yt:
        y = fy(t)
        out.append(f'<line x1="{ml}" y1="{y:.1f}" x2="{ml + pw}" y2="{y:.1f}" '
                   'stroke="#e0e0e0"/>')
        out.append(f'<text x="{ml - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{escape(_num_label(t))}</text>')
    out.append(f'<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" '
               'fill="none" stroke="#444"/>')
    out.append(f'<text x="{ml + pw / 2}" y="{height - 12}" '
               f'text-anchor="middle">{escape(xlabel)}</text>')
    out.append(f'<text transform="translate(16,{mt + ph / 2}) rotate(-90)" '
               f'text-anchor="middle">{escape(ylabel)}</text>')
    for i, s in enumerate(series):
        color = s.get("color", PALETTE[i % len(PALETTE)])
        p = [(fx(x), fy(y)) for x, y in s["points"]
             if y is not None and (not logy or y > 0) and (not logx or x > 0)]
        dash = ' stroke-dasharray="6,4"' if s.get("dash") else ""
        if len(p) > 1:
            d = " ".join(f"{x:.1f},{y:.1f}" for x, y in p)
            out.append(f'<polyline points="{d}" fill="none" stroke="{color}" '
                       f'stroke-width="2"{dash}/>')
        for x, y in p:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" '
                       f'fill="{color}"/>')
        ly = mt + 10 + i * 18
        out.append(f'<line x1="{ml + pw + 12}" y1="{ly}" x2="{ml + pw + 36}" '
                   f'y2="{ly}" stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{ml + pw + 42}" y="{ly + 4}">'
                   f'{escape(s["label"])}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
