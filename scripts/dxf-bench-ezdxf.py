#!/usr/bin/python3
"""ezdxf's side of `npm run bench -- drawings`: the same work on one DXF file, timed in milliseconds.

Usage: dxf-bench-ezdxf.py FILE OUT_DIR

Prints one JSON object: {"read": ms, "extents": ms, "transform": ms, "entities": n, "capture": ms|null,
"plot": ms|null, "drawing": "why not" | null}:
  read       ezdxf.readfile (ezdxf.recover.readfile for a file readfile refuses)
  extents    ezdxf.bbox.extents of the model space (every entity bounded: what a query at detail=full
             answers as `bounds`)
  transform  every model-space entity moved by (12.5, -3.25, 0), then rotated 30 degrees about (1, 2),
             with its own transform(Matrix44) (entities ezdxf cannot transform are passed over)
  capture    the drawing add-on's matplotlib backend, the model space as a PNG 2048 pixels wide
  plot       the same figure written as PDF
The drawing add-on needs matplotlib: without it capture and plot are null and `drawing` says why.
Run it with Debian's /usr/bin/python3 (python3-ezdxf).
"""
import json
import math
import sys
import time
from pathlib import Path

import ezdxf
from ezdxf import bbox, recover
from ezdxf.math import Matrix44


def ms(t0):
    return (time.perf_counter() - t0) * 1000


def extents(msp):
    """bbox.extents of the model space, entity by entity: ezdxf 0.18 raises ZeroDivisionError for a
    block reference of scale 0 (netDxf's sample has one), which is passed over as chronicle bounds nothing
    there either."""
    cache = bbox.Cache()
    total = bbox.BoundingBox()
    for e in msp:
        try:
            total.extend(bbox.extents([e], fast=False, cache=cache))
        except ZeroDivisionError:
            pass
    return total


def main():
    path, out_dir = sys.argv[1], Path(sys.argv[2])
    t0 = time.perf_counter()
    try:
        doc = ezdxf.readfile(path)
    except ezdxf.DXFStructureError:
        doc, _ = recover.readfile(path)
    result = {"read": ms(t0)}
    msp = doc.modelspace()
    # ezdxf 0.18 divides by the length of a written zero thickness when it transforms (also the block
    # entities bbox.extents and the drawing add-on move): 0 is the default, so it goes, untimed.
    for e in doc.entitydb.values():
        if e.dxf.hasattr("thickness") and e.dxf.thickness == 0:
            e.dxf.discard("thickness")

    t0 = time.perf_counter()
    extents(msp)
    result["extents"] = ms(t0)

    move = Matrix44.translate(12.5, -3.25, 0)
    rotate = Matrix44.chain(
        Matrix44.translate(-1, -2, 0), Matrix44.z_rotate(math.radians(30)), Matrix44.translate(1, 2, 0)
    )
    entities = list(msp)
    t0 = time.perf_counter()
    for m in (move, rotate):
        for e in entities:
            try:
                e.transform(m)
            except (NotImplementedError, AttributeError, ValueError, ZeroDivisionError):
                pass
    result["transform"] = ms(t0)
    result["entities"] = len(entities)

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from ezdxf.addons.drawing import Frontend, RenderContext
        from ezdxf.addons.drawing.matplotlib import MatplotlibBackend
    except ImportError as error:
        result.update(capture=None, plot=None, drawing=f"the drawing add-on needs matplotlib: {error}")
        print(json.dumps(result))
        return

    def figure():
        fig = plt.figure(figsize=(20.48, 20.48), dpi=100)
        ax = fig.add_axes([0, 0, 1, 1])
        Frontend(RenderContext(doc), MatplotlibBackend(ax)).draw_layout(msp, finalize=True)
        return fig

    t0 = time.perf_counter()
    fig = figure()
    fig.savefig(out_dir / "ezdxf.png", dpi=100)
    plt.close(fig)
    result["capture"] = ms(t0)
    t0 = time.perf_counter()
    fig = figure()
    fig.savefig(out_dir / "ezdxf.pdf")
    plt.close(fig)
    result["plot"] = ms(t0)
    result["drawing"] = None
    print(json.dumps(result))


main()
