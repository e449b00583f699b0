#!/usr/bin/python3
"""ezdxf's side of the transform tests: the model-space entities of a DXF file after the given steps.

Usage: dxf-transform-oracle.py [--recover] FILE STEPS_JSON

STEPS_JSON is a list of steps as entities_transform takes them, applied one after the other to every
model-space entity of the types below (an INSERT as the frame its block is drawn in — origin and axes of
its matrix — the insertion point of each cell of its grid, and its attributes' points and heights; a DIMENSION as its definition points and angle directions in the
world and the lines of its geometry block, which ezdxf moves with it; a HATCH as the world points of
its boundary paths: polyline vertices, line edges' ends, arc and ellipse edges' centres) with ezdxf's own `transform(Matrix44)`:
  {"action": "move", "vector": [x, y, z]}
  {"action": "rotate", "center": [x, y], "angle": degrees}
  {"action": "scale", "center": [x, y, z], "factor": f}
  {"action": "mirror", "axis": [[x1, y1], [x2, y2]]}
Prints [{"before": fields, "after": fields}, ...] as JSON, in model-space order, with the fields
chronicle's model names (handles are left out: ezdxf gives R12 files without handles handles of its own).
--recover reads the file with ezdxf.recover, for the files readfile refuses.
"""
import json
import math
import sys

import ezdxf
from ezdxf.entities.boundary_paths import BoundaryPathType, EdgeType
from ezdxf.math import Matrix44, Vec3


def matrix(step):
    action = step["action"]
    if action == "move":
        x, y, *z = step["vector"]
        return Matrix44.translate(x, y, z[0] if z else 0)
    if action == "rotate":
        cx, cy = step.get("center", [0, 0])[:2]
        return Matrix44.chain(
            Matrix44.translate(-cx, -cy, 0),
            Matrix44.z_rotate(math.radians(step["angle"])),
            Matrix44.translate(cx, cy, 0),
        )
    if action == "scale":
        cx, cy, *cz = step.get("center", [0, 0, 0])
        cz = cz[0] if cz else 0
        f = step["factor"]
        return Matrix44.chain(
            Matrix44.translate(-cx, -cy, -cz), Matrix44.scale(f, f, f), Matrix44.translate(cx, cy, cz)
        )
    if action == "mirror":
        (x1, y1, *_), (x2, y2, *_) = step["axis"]
        length = math.hypot(x2 - x1, y2 - y1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        a, b = ux * ux - uy * uy, 2 * ux * uy
        # x' = a·x + b·y + e, y' = b·x − a·y + f (chronicle's mirroring), as ezdxf's row vectors.
        e, f = x1 - (a * x1 + b * y1), y1 - (b * x1 - a * y1)
        return Matrix44([a, b, 0, 0, b, -a, 0, 0, 0, 0, 1, 0, e, f, 0, 1])
    raise SystemExit(f"unknown action {action}")


def vec(v):
    return [float(v[0]), float(v[1]), float(v[2])]


def fields(e):
    t = e.dxftype()
    d = e.dxf
    if t == "ELLIPSE":
        return {
            "type": "Ellipse",
            "center": vec(d.center),
            "major_axis": vec(d.major_axis),
            "extrusion": vec(d.extrusion),
            "ratio": d.ratio,
            "start_param": d.start_param,
            "end_param": d.end_param,
        }
    if t == "LINE":
        return {"type": "Line", "start": vec(d.start), "end": vec(d.end)}
    if t == "POINT":
        return {"type": "Point", "location": vec(d.location)}
    if t == "INSERT":
        m = e.matrix44()
        return {
            "type": "Insert",
            "origin": vec(m.transform((0, 0, 0))),
            "x_axis": vec(m.transform_direction((1, 0, 0))),
            "y_axis": vec(m.transform_direction((0, 1, 0))),
            "cells": [vec(c.ocs().to_wcs(c.dxf.insert)) for c in e.multi_insert()],
            "attribs": [
                vec(a.ocs().to_wcs(a.dxf.insert)) + [a.dxf.height] for a in e.attribs
            ],
        }
    if t == "DIMENSION":
        ocs = e.ocs()
        points = {}
        for code, name in DIMENSION_POINTS:
            if d.hasattr(name):
                p = d.get(name)
                points[str(code)] = vec(ocs.to_wcs(p) if code in (11, 12, 16) else p)
        directions = {}
        for code, name in DIMENSION_ANGLES:
            if d.hasattr(name):
                directions[str(code)] = vec(ocs.to_wcs(Vec3.from_deg_angle(d.get(name))))
        block = e.get_geometry_block()
        lines = [] if block is None else [
            [vec(x.dxf.start), vec(x.dxf.end)] for x in block if x.dxftype() == "LINE"
        ]
        return {"type": "DIMENSION", "points": points, "directions": directions, "block_lines": lines}
    if t in ("SOLID", "TRACE"):
        out = {
            "type": t.capitalize(),
            "corners": [vec(d.get(f"vtx{i}")) for i in range(4)],
            "extrusion": vec(d.extrusion),
        }
        if d.hasattr("thickness"):
            out["thickness"] = d.thickness
        return out
    if t == "3DFACE":
        return {
            "type": "Face3d",
            "corners": [vec(d.get(f"vtx{i}")) for i in range(4)],
            "invisible_edges": d.invisible,
        }
    if t == "POLYLINE":
        out = {
            "type": "Polyline",
            "flags": d.flags,
            "extrusion": vec(d.extrusion),
            "vertices": [
                {
                    "location": vec(v.dxf.location),
                    "bulge": v.dxf.bulge,
                    "start_width": v.dxf.start_width,
                    "end_width": v.dxf.end_width,
                    "flags": v.dxf.flags,
                }
                for v in e.vertices
                if not v.is_face_record
            ],
        }
        if d.hasattr("elevation"):
            out["elevation"] = vec(d.elevation)
        for name in ("default_start_width", "default_end_width", "thickness"):
            if d.hasattr(name):
                out[name] = d.get(name)
        return out
    if t == "MESH":
        return {"type": "MESH", "vertices": [vec(v) for v in e.vertices]}
    core = core_fields(e)
    if core is not None:
        return core
    if t == "MLINE":
        x = d.extrusion
        return {
            "type": "MLINE",
            "scale": d.scale_factor,
            # ezdxf keeps the image of the extrusion unnormalised (a scale of -0.5 gives (0, 0, -0.5)).
            "extrusion": vec(Vec3(x).normalize()),
            "vertices": [
                {
                    "location": vec(v.location),
                    "direction": vec(v.line_direction),
                    "miter": vec(v.miter_direction),
                    "params": [[float(p) for p in params] for params in v.line_params],
                }
                for v in e.vertices
            ],
        }
    if t == "WIPEOUT":
        return {
            "type": "WIPEOUT",
            "position": vec(d.insert),
            "u_vector": vec(d.u_pixel),
            "v_vector": vec(d.v_pixel),
            "boundary": [vec(p) for p in e.boundary_path_wcs()],
        }
    if t == "HELIX":
        return {
            "type": "HELIX",
            "control_points": [vec(p) for p in e.control_points],
            "knots": [float(k) for k in e.knots],
            "axis_base_point": vec(d.axis_base_point),
            "start_point": vec(d.start_point),
            "axis_vector": vec(d.axis_vector),
            "radius": d.radius,
        }
    if t == "SPLINE":
        out = {
            "type": "Spline",
            "control_points": [vec(p) for p in e.control_points],
            "fit_points": [vec(p) for p in e.fit_points],
            "knots": [float(k) for k in e.knots],
            "weights": [float(w) for w in e.weights],
        }
        for name in ("start_tangent", "end_tangent", "extrusion"):
            if d.hasattr(name):
                out[name] = vec(d.get(name))
        # A file ezdxf takes for R12 (no $ACADVER) loads no AcDbSpline attributes: compare what it read.
        for name in ("degree", "flags"):
            if d.hasattr(name):
                out[name] = d.get(name)
        return out
    if t in ("XLINE", "RAY"):
        return {"type": "XLine" if t == "XLINE" else "Ray", "start": vec(d.start), "direction": vec(d.unit_vector)}
    if t == "HATCH":
        ocs = e.ocs()
        z = d.elevation.z
        paths = []
        for path in e.paths:
            if path.type == BoundaryPathType.POLYLINE:
                paths.append([vec(ocs.to_wcs((x, y, z))) for x, y, *_ in path.vertices])
            else:
                points = []
                for edge in path.edges:
                    if edge.type == EdgeType.LINE:
                        points += [vec(ocs.to_wcs((*edge.start, z))), vec(ocs.to_wcs((*edge.end, z)))]
                    elif edge.type in (EdgeType.ARC, EdgeType.ELLIPSE):
                        points.append(vec(ocs.to_wcs((*edge.center, z))))
                paths.append(points)
        return {"type": "HATCH", "paths": paths}
    return None


def core_fields(e):
    """CIRCLE, ARC, LWPOLYLINE, TEXT, MTEXT, IMAGE and LEADER in world terms, so that a mirror compares
    equal however the OCS is turned (ezdxf turns the extrusion over where chronicle may mirror the
    angles): centres, points and directions in the world, an arc's two ends as a sorted pair, a
    polyline's bulges as seen from +z."""
    t = e.dxftype()
    d = e.dxf
    if t in ("CIRCLE", "ARC"):
        ocs = e.ocs()
        out = {"type": t.capitalize(), "center": vec(ocs.to_wcs(d.center)), "radius": d.radius}
        if t == "ARC":
            out["ends"] = sorted([vec(e.start_point), vec(e.end_point)], key=rounded)
        return out
    if t == "LWPOLYLINE":
        ocs = e.ocs()
        sign = 1 if d.extrusion[2] >= 0 else -1
        points = list(e.get_points("xyb"))
        return {
            "type": "LwPolyline",
            "world": [vec(ocs.to_wcs((x, y, d.elevation))) for x, y, _ in points],
            "world_bulges": [sign * b for _, _, b in points],
        }
    if t == "TEXT":
        # The way the glyphs advance: a text drawn backwards (71 bit 2) reads against its rotation, so a
        # mirror made by turning the extrusion over equals one made by that flag.
        ocs = e.ocs()
        backwards = -1 if d.get("text_generation_flag", 0) & 2 else 1
        return {
            "type": "Text",
            "world_position": vec(ocs.to_wcs(d.insert)),
            "height": d.height,
            "world_advance": vec(ocs.to_wcs(Vec3.from_deg_angle(d.rotation)) * backwards),
        }
    if t == "MTEXT":
        direction = Vec3(d.text_direction) if d.hasattr("text_direction") else None
        if direction is None:
            direction = e.ocs().to_wcs(Vec3.from_deg_angle(d.get("rotation", 0)))
        return {
            "type": "MText",
            "position": vec(d.insert),
            "height": d.char_height,
            "world_direction": vec(direction.normalize()),
        }
    if t == "IMAGE":
        return {
            "type": "Image",
            "position": vec(d.insert),
            "u_vector": vec(d.u_pixel),
            "v_vector": vec(d.v_pixel),
        }
    if t == "LEADER":
        return {"type": "LEADER", "vertices": [vec(v) for v in e.vertices]}
    return None


def rounded(p):
    return [round(v, 6) for v in p]


# A DIMENSION's definition points (11, 12 and 16 in its OCS, the others in the world) and its angles.
DIMENSION_POINTS = [
    (10, "defpoint"),
    (11, "text_midpoint"),
    (12, "insert"),
    (13, "defpoint2"),
    (14, "defpoint3"),
    (15, "defpoint4"),
    (16, "defpoint5"),
]
DIMENSION_ANGLES = [(50, "angle"), (51, "horizontal_direction"), (53, "text_rotation")]


def moved_cells(before, steps):
    """A grid's cells after the steps: each cell's point carried by the matrices. ezdxf 0.18's
    Insert.transform leaves the MINSERT spacing as it was (a scaled grid keeps its old spacing), so
    its own after-state is no oracle for the cells; the image of each cell under the steps is."""
    cells = before["cells"]
    for m in steps:
        cells = [vec(m.transform(c)) for c in cells]
    return cells


def drop_zero_thickness(doc):
    """ezdxf 0.18 turns a written thickness into extrusion * thickness and normalises it, so a written 0
    (netDxf writes 39 0.0 on every LINE, also in the blocks a DIMENSION moves) divides by zero when it
    transforms or draws; 0 is the default, so it goes."""
    for e in doc.entitydb.values():
        if e.dxf.hasattr("thickness") and e.dxf.thickness == 0:
            e.dxf.discard("thickness")


def transformed(doc, steps, unviewed=False):
    """Each model-space entity of a type above before and after the steps (matrices), in model-space
    order; with `unviewed`, the others as {"type": DXF type, "unviewed": true}, not transformed."""
    out = []
    for e in doc.modelspace():
        before = fields(e)
        if before is None:
            if unviewed:
                out.append({"before": {"type": e.dxftype(), "unviewed": True}})
            continue
        for m in steps:
            e.transform(m)
        after = fields(e)
        if after["type"] == "Insert":
            after["cells"] = moved_cells(before, steps)
        out.append({"before": before, "after": after})
    return out


def main():
    args = sys.argv[1:]
    if args[0] == "--recover":
        from ezdxf import recover

        doc, _ = recover.readfile(args[1])
        args = args[1:]
    else:
        doc = ezdxf.readfile(args[0])
    drop_zero_thickness(doc)
    out = transformed(doc, [matrix(s) for s in json.loads(args[1])])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
