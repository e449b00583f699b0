#!/usr/bin/python3
"""ezdxf's side of the annotation transform tests: the MULTILEADER, TOLERANCE, SHAPE and ACAD_TABLE
entities of a DXF file's model space after the given steps (the steps of dxf-transform-oracle.py; `[]`
reads them as they are).

Usage: dxf-annotation-oracle.py FILE STEPS_JSON

Each step is ezdxf 0.18.1's own `transform(Matrix44)` where it has one that runs:
- MULTILEADER: `MultiLeader.transform`, except that a leader whose dogleg length is 0 (ezdxf divides by
  it) has its dogleg direction turned and its length kept 0;
- TOLERANCE: `Tolerance.transform`;
- SHAPE: the body of `Shape.transform`, which in 0.18.1 fails on its own misspelt attribute (`x_scale`
  for `xscale`), run with the attribute as ezdxf spells it;
- ACAD_TABLE: ezdxf has no transform (it keeps the table as tags, `AcadTableBlockContent`): its
  insertion point (10) is mapped by the matrix, its horizontal direction (11) as a unit direction, and
  its drawing — the lines of its block placed at the insertion point along the direction — by the matrix.
Prints a JSON list, in model-space order, of each entity's fields.
"""
import importlib.util
import json
import math
import sys
from pathlib import Path

import ezdxf
from ezdxf.entities.mleader import LeaderData
from ezdxf.math import Matrix44, OCSTransform, Vec3

_spec = importlib.util.spec_from_file_location(
    "transform_oracle", Path(__file__).with_name("dxf-transform-oracle.py")
)
_oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_oracle)
matrix = _oracle.matrix

TYPES = {"MULTILEADER", "MLEADER", "TOLERANCE", "SHAPE", "ACAD_TABLE"}


def vec(v):
    return [float(v[0]), float(v[1]), float(v[2])]


_leader_transform = LeaderData.transform


def leader_transform(self, wcs):
    if self.dogleg_length != 0:
        return _leader_transform(self, wcs)
    length = self.dogleg_length
    direction = self.dogleg_vector
    self.dogleg_length = 1.0
    _leader_transform(self, wcs)
    unit = wcs.m.transform_direction(direction if direction.magnitude > 0 else Vec3(1, 0, 0))
    self.dogleg_vector = unit.normalize()
    self.dogleg_length = length


LeaderData.transform = leader_transform


def shape_transform(e, m):
    dxf = e.dxf
    dxf.insert = m.transform(dxf.insert)
    ocs = OCSTransform(dxf.extrusion, m)
    dxf.rotation = ocs.transform_deg_angle(dxf.rotation)
    dxf.size = ocs.transform_length((0, dxf.size, 0))
    dxf.xscale = ocs.transform_length((dxf.xscale, 0, 0), reflection=dxf.xscale)
    if dxf.hasattr("thickness"):
        dxf.thickness = ocs.transform_thickness(dxf.thickness)
    dxf.extrusion = ocs.new_extrusion


def table_tags(e, subclass):
    try:
        return e.xtags.get_subclass(subclass)
    except Exception:
        return None


def table_fields(e, doc, moves):
    ref = table_tags(e, "AcDbBlockReference")
    table = table_tags(e, "AcDbTable")
    insert = Vec3(ref.get_first_value(10, (0, 0, 0)))
    direction = Vec3(table.get_first_value(11, (1, 0, 0))) if table else Vec3(1, 0, 0)
    name = ref.get_first_value(2, "")
    # The block drawn at the insertion point, turned to the direction, then by the steps.
    place = Matrix44.chain(Matrix44.z_rotate(math.atan2(direction.y, direction.x)), Matrix44.translate(*insert))
    for m in moves:
        place = place * m
        insert = m.transform(insert)
        direction = m.transform_direction(direction).normalize()
    lines = [
        [vec(place.transform(x.dxf.start)), vec(place.transform(x.dxf.end))]
        for x in doc.blocks.get(name, [])
        if x.dxftype() == "LINE"
    ]
    return {"type": "ACAD_TABLE", "insert": vec(insert), "direction": vec(direction), "lines": lines}


def mleader_fields(e):
    c = e.context
    d = e.dxf
    out = {
        "type": "MULTILEADER",
        "scale": c.scale,
        "base_point": vec(c.base_point),
        "char_height": c.char_height,
        "arrow_head_size": c.arrow_head_size,
        "landing_gap_size": c.landing_gap_size,
        "plane_origin": vec(c.plane_origin),
        "plane_x_axis": vec(c.plane_x_axis),
        "plane_y_axis": vec(c.plane_y_axis),
        "plane_normal_reversed": c.plane_normal_reversed,
        "leaders": [
            {
                "last_leader_point": vec(l.last_leader_point),
                "dogleg_vector": vec(l.dogleg_vector),
                "dogleg_length": l.dogleg_length,
                "breaks": [vec(b) for b in l.breaks],
                "lines": [[vec(v) for v in line.vertices] for line in l.lines],
            }
            for l in c.leaders
        ],
        "entity": {
            "dogleg_length": d.dogleg_length,
            "arrow_head_size": d.arrow_head_size,
            "scale": d.scale,
        },
    }
    if c.mtext is not None:
        t = c.mtext
        out["mtext"] = {
            "insert": vec(t.insert),
            "text_direction": vec(t.text_direction),
            "rotation": t.rotation,
            "width": t.width,
            "defined_height": t.defined_height,
            "extrusion": vec(t.extrusion),
        }
    if c.block is not None:
        b = c.block
        out["block"] = {
            "insert": vec(b.insert),
            "scale": vec(b.scale),
            "rotation": b.rotation,
            "extrusion": vec(b.extrusion),
            "matrix": list(b.matrix44),
        }
        out["entity"]["block_rotation"] = d.block_rotation
        out["entity"]["block_scale_vector"] = vec(d.block_scale_vector)
    return out


def fields(e, doc, moves):
    t = e.dxftype()
    d = e.dxf
    if t == "ACAD_TABLE":
        return table_fields(e, doc, moves)
    for m in moves:
        if t == "SHAPE":
            shape_transform(e, m)
        else:
            e.transform(m)
    if t == "TOLERANCE":
        return {
            "type": t,
            "insert": vec(d.insert),
            "x_axis_vector": vec(d.x_axis_vector),
            "extrusion": vec(d.extrusion),
        }
    if t == "SHAPE":
        return {
            "type": t,
            "insert": vec(d.insert),
            "size": d.size,
            "rotation": d.rotation,
            "xscale": d.xscale,
            "thickness": d.thickness,
            "extrusion": vec(d.extrusion),
        }
    return mleader_fields(e)


def main():
    doc = ezdxf.readfile(sys.argv[1])
    moves = [matrix(step) for step in json.loads(sys.argv[2])]
    out = [fields(e, doc, moves) for e in doc.modelspace() if e.dxftype() in TYPES]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
