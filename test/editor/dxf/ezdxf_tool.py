#!/usr/bin/python3
"""ezdxf side of the DXF interop tests (run with Debian's /usr/bin/python3 and python3-ezdxf).

    ezdxf_tool.py write DIR        writes the fixture drawings into DIR, prints their names as JSON
    ezdxf_tool.py inspect FILE...  audits and reads each file, prints what ezdxf sees as JSON

One process per command, so a test run starts Python twice.
"""
import json
import math
import sys
from pathlib import Path

import ezdxf
from ezdxf import recover
from ezdxf.math import Vec2, Vec3

ezdxf.options.write_fixed_meta_data_for_testing = True


def add_layers(doc):
    doc.layers.add("WALLS", color=1, linetype="Continuous")
    doc.layers.add("HIDDEN_OFF", color=3).off()
    doc.layers.add("FROZEN", color=4).freeze()
    doc.layers.add("LOCKED", color=5).lock()
    doc.appids.new("CHRONICLE")


def add_basics(doc, msp, modern):
    msp.add_line((0, 0, 0), (10.5, 20.25, 1.5), dxfattribs={"layer": "WALLS", "color": 3})
    line = msp.add_line((1, 2), (3, 4), dxfattribs={"layer": "WALLS", "lineweight": 35})
    line.set_xdata("CHRONICLE", [(1000, "tag-a"), (1040, 2.5), (1070, 7), (1010, (1, 2, 3)), (1005, "0")])
    msp.add_circle((5, 5), 2.5, dxfattribs={"layer": "HIDDEN_OFF", "thickness": 0.5})
    msp.add_arc((0, 0), 3, 10, 190, dxfattribs={"layer": "FROZEN"})
    msp.add_text("Hello DXF", dxfattribs={"height": 2.5, "rotation": 30, "insert": (7, 8)})
    aligned = msp.add_text("Centered", dxfattribs={"height": 1.0, "layer": "LOCKED"})
    aligned.set_placement((20, 20), align=ezdxf.enums.TextEntityAlignment.MIDDLE_CENTER)
    msp.add_point((4, 4, 4))
    blk = doc.blocks.new("DOOR", base_point=(1, 1))
    blk.add_line((0, 0), (1, 0))
    blk.add_circle((0.5, 0.5), 0.25)
    blk.add_attdef("NUMBER", (0, -1), dxfattribs={"height": 0.5})
    msp.add_blockref("DOOR", (10, 10), dxfattribs={"xscale": 2, "yscale": 2, "rotation": 45})
    ref = msp.add_blockref("DOOR", (30, 10))
    ref.add_attrib("NUMBER", "101", (30, 9))
    msp.add_linear_dim(base=(0, 5), p1=(0, 0), p2=(10, 0), dimstyle="Standard").render()
    msp.add_radius_dim(center=(5, 5), radius=2.5, angle=45, dimstyle="Standard").render()
    if modern:
        msp.add_mtext("First line\\PSecond line " + "long " * 80, dxfattribs={"char_height": 1.5, "width": 40, "insert": (0, 50)})
        pl = msp.add_lwpolyline([(0, 0, 0, 0, 0.5), (10, 0, 0.2, 0.4, 0), (10, 10, 0, 0, -1)], format="xyseb", close=True)
        pl.dxf.layer = "WALLS"
        msp.add_lwpolyline([(0, 0), (5, 5), (10, 0)])
        hatch = msp.add_hatch(color=2)
        hatch.paths.add_polyline_path([(0, 0), (4, 0), (4, 4), (0, 4)], is_closed=True)
        hatch.set_xdata("CHRONICLE", [(1000, "hatch-note")])
        msp.add_spline([(0, 0), (2, 3), (5, 1), (8, 4)])
        doc.groups.new("PAIR", description="two lines").extend([msp[0], msp[1]])
        layout = doc.layouts.new("Sheet A")
        layout.add_line((0, 0), (100, 50), dxfattribs={"layer": "WALLS"})
        layout.add_text("paper text", dxfattribs={"insert": (10, 10), "height": 3})
        image_def = doc.add_image_def("photo.png", size_in_pixel=(640, 480))
        msp.add_image(image_def, insert=(50, 50), size_in_units=(6.4, 4.8), rotation=0)
    else:
        msp.add_polyline2d([(0, 0), (10, 0), (10, 10)], close=True, dxfattribs={"layer": "WALLS"})
        msp.add_3dface([(0, 0, 0), (1, 0, 0), (1, 1, 1), (0, 1, 0)])
        msp.add_solid([(0, 0), (1, 0), (0, 1)])


def write(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for version, name in [("R2018", "r2018.dxf"), ("R2000", "r2000.dxf"), ("R2010", "r2010.dxf"), ("R12", "r12.dxf")]:
        doc = ezdxf.new(version, setup=version != "R12")
        add_layers(doc)
        add_basics(doc, doc.modelspace(), version != "R12")
        doc.saveas(out / name)
        names.append(name)
    print(json.dumps(names))


def big(path, count):
    doc = ezdxf.new("R2018")
    msp = doc.modelspace()
    for i in range(count):
        x = (i % 1000) * 1.5
        y = (i // 1000) * 1.5
        kind = i % 4
        if kind == 0:
            msp.add_line((x, y), (x + 1, y + 1))
        elif kind == 1:
            msp.add_circle((x, y), 0.5)
        elif kind == 2:
            msp.add_lwpolyline([(x, y), (x + 1, y), (x + 1, y + 1)])
        else:
            msp.add_text(f"T{i}", dxfattribs={"insert": (x, y), "height": 0.25})
    doc.saveas(path)


def plain(value):
    if isinstance(value, (Vec3, Vec2)):
        return [round(c, 9) for c in value]
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def entity_info(e):
    info = {"type": e.dxftype(), "attribs": {k: plain(v) for k, v in sorted(e.dxfattribs().items())}}
    if e.xdata:
        info["xdata"] = {app: [[t.code, plain(t.value)] for t in tags] for app, tags in e.xdata.data.items()}
    t = e.dxftype()
    if t == "LWPOLYLINE":
        info["points"] = [plain(list(p)) for p in e.get_points("xyseb")]
        info["closed"] = e.closed
    elif t == "MTEXT":
        info["text"] = e.text
    elif t == "POLYLINE":
        info["points"] = [plain(v.dxf.location) for v in e.vertices]
    elif t == "INSERT":
        info["attribs_list"] = [{"tag": a.dxf.tag, "text": a.dxf.text, "insert": plain(a.dxf.insert)} for a in e.attribs]
    elif t == "HATCH":
        info["paths"] = len(e.paths)
    elif t == "SPLINE":
        info["control_points"] = plain([list(p) for p in e.control_points])
    return info


def inspect(path):
    try:
        doc, auditor = recover.readfile(path)
    except Exception as exc:  # reported, the test fails on it
        return {"error": f"{type(exc).__name__}: {exc}"}
    result = {
        "version": doc.dxfversion,
        "errors": [f"{e.code}: {e.message}" for e in auditor.errors],
        "fixes": [f"{e.code}: {e.message}" for e in auditor.fixes],
        "layers": {
            l.dxf.name: {
                "color": l.color,
                "off": l.is_off(),
                "frozen": l.is_frozen(),
                "locked": l.is_locked(),
                "linetype": l.dxf.linetype,
            }
            for l in doc.layers
        },
        "appids": sorted(a.dxf.name for a in doc.appids),
        "layouts": {},
        "blocks": {},
        "groups": {name: {"handles": [e.dxf.handle for e in g], "description": g.dxf.description} for name, g in doc.groups},
        "handseed": doc.header.get("$HANDSEED"),
    }
    for name in doc.layout_names_in_taborder():
        layout = doc.layouts.get(name)
        result["layouts"][name] = {
            "entities": {e.dxf.handle: entity_info(e) for e in layout},
            "paper": layout.dxf_layout.dxf.get("paper_size", ""),
        }
    for block in doc.blocks:
        if block.name.lower().startswith(("*model_space", "*paper_space")):
            continue
        result["blocks"][block.name] = {
            "base": plain(block.block.dxf.base_point),
            "entities": {e.dxf.handle: entity_info(e) for e in block},
        }
    return result


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "write":
        write(sys.argv[2])
    elif command == "big":
        big(sys.argv[2], int(sys.argv[3]))
    elif command == "inspect":
        print(json.dumps({p: inspect(p) for p in sys.argv[2:]}))
    else:
        sys.exit(f"unknown command {command}")
