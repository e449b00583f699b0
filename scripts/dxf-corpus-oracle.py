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
Python starts and imports ezdxf and matplotlib once, so a check costs only its own work.
"""
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


def open_doc(path, use_recover):
    if use_recover:
        doc, _ = recover.readfile(path)
        return doc
    return ezdxf.readfile(path)


def transform(request):
    doc = open_doc(request["path"], request.get("recover", False))
    TRANSFORM.drop_zero_thickness(doc)
    steps = [TRANSFORM.matrix(s) for s in request.get("steps", [])]
    return {"transformed": TRANSFORM.transformed(doc, steps, unviewed=True)}


def extents(request):
    msp = open_doc(request["path"], request.get("recover", False)).modelspace()
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


def raster(request):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy
    from ezdxf.addons.drawing import Frontend, RenderContext
    from ezdxf.addons.drawing.config import Configuration
    from ezdxf.addons.drawing.matplotlib import MatplotlibBackend
    from ezdxf.addons.drawing.properties import LayoutProperties

    doc = open_doc(request["path"], request.get("recover", False))
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
        backend = MatplotlibBackend(ax, adjust_figure=False)
        Frontend(ctx, backend, config).draw_layout(
            msp, finalize=False, layout_properties=layout, filter_func=drawable
        )
        ax.set_axis_off()
        ax.set_facecolor(BACKGROUND)
        figure.patch.set_facecolor(BACKGROUND)
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.margins(0)
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
