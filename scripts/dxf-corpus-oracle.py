#!/usr/bin/python3
"""ezdxf's side of the corpus checks, as one process the tests keep for the whole run.

    /usr/bin/python3 scripts/dxf-corpus-oracle.py        (reads one JSON request a line on stdin,
                                                           answers one JSON line each on stdout)

Requests (every answer is {"ok": true, ...} or {"ok": false, "error": "Type: message"}):
  {"op": "hello"}  ->  ezdxf's version and whether its drawing add-on can draw (matplotlib imports)
  {"op": "transform", "path": P, "recover": bool, "steps": STEPS}
      -> "transformed": each model-space entity before and after STEPS, in model-space order
         (scripts/dxf-transform-oracle.py's fields; an entity that script has no fields for is
         {"before": {"type": DXF type, "unviewed": true}})
  {"op": "extents", "path": P, "recover": bool}
      -> "bounds": ezdxf.bbox.extents of model space ([min, max], null when it bounds nothing; the
         entities it cannot bound left out) and "entities": how many model space holds
  {"op": "raster", "path": P, "recover": bool, "window": [x0, y0, x1, y1], "width": W, "height": H}
      -> ezdxf's drawing add-on's picture of model space over that window on #123456, W x H pixels:
         "drawn" (how many pixels differ from the background) and "extents" ([column0, row0, column1,
         row1] of those pixels, rows from the top; null when none)
Python starts and imports ezdxf and matplotlib once, so a check costs only its own work. The drawing is
ezdxf's matplotlib backend's picture, made cheaper where that changes no pixel (see QuickBackend), and a
file read for `extents` is kept for the `raster` of the same file that follows it (see Documents).
"""
import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import ezdxf
from ezdxf import recover

HERE = Path(__file__).resolve().parent
# A background no ACI colour is near (ACI 250 is black in the palette ezdxf and chronicle share): every
# entity shows on it.
BACKGROUND = "#123456"


def load(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FACTS = load("dxf-corpus-facts")
TRANSFORM = load("dxf-transform-oracle")


def read_doc(path, use_recover):
    if use_recover:
        doc, _ = recover.readfile(path)
        return doc
    return ezdxf.readfile(path)


class Documents:
    """The last file read, by its bytes' hash: the drawn test asks `extents` then `raster` of each file, and
    reading a large one (1 MB) is a second of ezdxf's time. `extents` only looks, so it keeps the document;
    `transform` and `raster` change it (thickness dropped, entities moved), so they take it out and the
    next request reads the file again."""

    def __init__(self):
        self._key = None
        self._doc = None

    @staticmethod
    def _key_of(path, use_recover):
        return (str(path), bool(use_recover), hashlib.sha256(Path(path).read_bytes()).hexdigest())

    def look(self, path, use_recover):
        key = self._key_of(path, use_recover)
        if key != self._key:
            self._key, self._doc = key, read_doc(path, use_recover)
        return self._doc

    def take(self, path, use_recover):
        key = self._key_of(path, use_recover)
        doc = self._doc if key == self._key else read_doc(path, use_recover)
        self._key, self._doc = None, None
        return doc


DOCUMENTS = Documents()


def transform(request):
    doc = DOCUMENTS.take(request["path"], request.get("recover", False))
    TRANSFORM.drop_zero_thickness(doc)
    steps = [TRANSFORM.matrix(s) for s in request.get("steps", [])]
    return {"transformed": TRANSFORM.transformed(doc, steps, unviewed=True)}


def extents(request):
    msp = DOCUMENTS.look(request["path"], request.get("recover", False)).modelspace()
    bounds, _ = FACTS.box(msp)
    return {"bounds": bounds, "entities": len(msp)}


def drawable(e):
    """What the drawing add-on is given: not a block reference of scale 0, for which ezdxf 0.18 raises
    ZeroDivisionError (netDxf's sample has one); it draws nothing, in chronicle too."""
    if e.dxftype() != "INSERT":
        return True
    return all(e.dxf.get(name, 1) != 0 for name in ("xscale", "yscale", "zscale"))


def can_draw():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def quick_backend():
    """ezdxf's matplotlib backend, drawing the same pixels with less of matplotlib's bookkeeping.

    Most of its time on a large drawing went to two things no pixel depends on here:
    - `Axes.add_patch` bounds every patch (each text's glyph outlines: numpy roots per Bezier segment) to
      grow the data limits, which only autoscaling and an aspect correction read; autoscaling is off and
      the window is set, and the aspect correction acts only when the window's and the picture's aspects
      differ by 0.5 % or more, so the patches are bounded then, before drawing, and otherwise not at all.
    - One `Line2D` artist per LINE: consecutive lines of the same colour and width, with no other
      primitive between them, are one LineCollection at the first one's z-order (the z-orders of those
      after it are taken as before, so everything else keeps its place), with the projecting caps a
      Line2D has by default.
    """
    from matplotlib.collections import LineCollection
    from ezdxf.addons.drawing.matplotlib import MatplotlibBackend

    class QuickBackend(MatplotlibBackend):
        def __init__(self, ax, **kwargs):
            super().__init__(ax, **kwargs)
            self.unbounded = []
            self._lines = []
            self._lines_key = None
            self._lines_z = 0
            ax.add_patch = self._add_patch

        def _add_patch(self, patch):
            # Axes.add_patch without _update_patch_limits (see bound_patches).
            ax = self.ax
            ax._set_artist_props(patch)
            if patch.get_clip_path() is None:
                patch.set_clip_path(ax.patch)
            ax._children.append(patch)
            patch._remove_method = ax._children.remove
            self.unbounded.append(patch)
            return patch

        def bound_patches(self):
            for patch in self.unbounded:
                self.ax._update_patch_limits(patch)
            self.unbounded = []

        def flush(self):
            if self._lines:
                color, width = self._lines_key
                self.ax.add_collection(
                    LineCollection(
                        self._lines,
                        linewidths=width,
                        colors=color,
                        zorder=self._lines_z,
                        capstyle="projecting",
                    )
                )
            self._lines = []
            self._lines_key = None

        def draw_line(self, start, end, properties):
            if start.isclose(end):
                self.flush()
                self.draw_point(start, properties)
                return
            key = (properties.color, self.get_lineweight(properties))
            if key != self._lines_key:
                self.flush()
                self._lines_key = key
                self._lines_z = self._get_z()
            else:
                self._get_z()
            self._lines.append(((start.x, start.y), (end.x, end.y)))

        def draw_point(self, pos, properties):
            self.flush()
            super().draw_point(pos, properties)

        def draw_solid_lines(self, lines, properties):
            self.flush()
            super().draw_solid_lines(lines, properties)

        def draw_path(self, path, properties):
            self.flush()
            super().draw_path(path, properties)

        def draw_filled_paths(self, paths, holes, properties):
            self.flush()
            super().draw_filled_paths(paths, holes, properties)

        def draw_filled_polygon(self, points, properties):
            self.flush()
            super().draw_filled_polygon(points, properties)

        def draw_text(self, text, transform, properties, cap_height):
            self.flush()
            super().draw_text(text, transform, properties, cap_height)

    return QuickBackend


def aspect_corrected(ax, width, height):
    """Whether matplotlib's `apply_aspect` (aspect "equal", adjustable "datalim") moves the limits of an
    Axes filling a width x height figure: only then do the data limits matter."""
    x0, x1 = ax.get_xbound()
    y0, y1 = ax.get_ybound()
    xsize = max(abs(x1 - x0), 1e-30)
    ysize = max(abs(y1 - y0), 1e-30)
    return abs((height / width) * xsize / ysize - 1) >= 0.005


def raster(request):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy
    from ezdxf.addons.drawing import Frontend, RenderContext
    from ezdxf.addons.drawing.config import Configuration
    from ezdxf.addons.drawing.properties import LayoutProperties

    doc = DOCUMENTS.take(request["path"], request.get("recover", False))
    TRANSFORM.drop_zero_thickness(doc)
    x0, y0, x1, y1 = request["window"]
    width, height = request["width"], request["height"]
    dpi = 100
    figure = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    try:
        ax = figure.add_axes([0, 0, 1, 1])
        msp = doc.modelspace()
        ctx = RenderContext(doc)
        layout = LayoutProperties.from_layout(msp)
        layout.set_colors(BACKGROUND)
        # XLINEs and RAYs across the whole window, as chronicle cuts them at its edges (ezdxf's default
        # draws them 20 units long).
        config = Configuration.defaults().with_changes(
            infinite_line_length=4 * max(x1 - x0, y1 - y0)
        )
        backend = quick_backend()(ax, adjust_figure=False)
        Frontend(ctx, backend, config).draw_layout(
            msp, finalize=False, layout_properties=layout, filter_func=drawable
        )
        backend.flush()
        ax.set_axis_off()
        ax.set_facecolor(BACKGROUND)
        figure.patch.set_facecolor(BACKGROUND)
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.margins(0)
        if aspect_corrected(ax, width, height):
            backend.bound_patches()
        figure.canvas.draw()
        pixels = numpy.asarray(figure.canvas.buffer_rgba())[:, :, :3].astype(int)
    finally:
        plt.close(figure)
    background = numpy.array([int(BACKGROUND[i : i + 2], 16) for i in (1, 3, 5)])
    drawn = numpy.abs(pixels - background).max(axis=2) > 10
    rows = numpy.nonzero(drawn.any(axis=1))[0]
    columns = numpy.nonzero(drawn.any(axis=0))[0]
    if len(rows) == 0:
        return {"drawn": 0, "extents": None, "size": [int(pixels.shape[1]), int(pixels.shape[0])]}
    return {
        "drawn": int(drawn.sum()),
        "extents": [int(columns[0]), int(rows[0]), int(columns[-1]), int(rows[-1])],
        "size": [int(pixels.shape[1]), int(pixels.shape[0])],
    }


def answer(request):
    op = request.get("op")
    if op == "hello":
        return {"ezdxf": ezdxf.__version__, "draws": can_draw()}
    if op == "transform":
        return transform(request)
    if op == "extents":
        return extents(request)
    if op == "raster":
        return raster(request)
    raise ValueError(f"unknown op {op!r}")


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            out = {"ok": True, **answer(json.loads(line))}
        except Exception as error:  # one file's failure is that check's answer, not the end of the run
            out = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
