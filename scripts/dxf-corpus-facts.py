#!/usr/bin/python3
"""What ezdxf sees in every file of the DXF corpus, as the corpus tests compare it.

    /usr/bin/python3 scripts/dxf-corpus-facts.py [CORPUS_DIR]   (default test/fixtures/dxf-corpus)
    npx biome format --write test/fixtures/dxf-corpus/facts.json  (the repository's JSON layout)
    /usr/bin/python3 scripts/dxf-corpus-facts.py --read FILE...    (the same facts of any files, as JSON on
                                                                   stdout: what the tests ask of saved files)

Writes CORPUS_DIR/facts.json: per file, its DXF version, how ezdxf read it (readfile, or recover mode
for a file readfile refuses), and the entities a plain query lists (those of every layout, and the contents of the blocks
the layouts insert, and of the blocks those insert, each block once), counted by DXF type and by layer,
with the model-space bounding box of ezdxf.bbox.extents; then what ezdxf's audit reports and fixes in
it (counted before the audit, which removes entities it finds invalid). Run it with Debian's /usr/bin/python3 and its
python3-ezdxf (0.18); the test reads the committed JSON, so a run of the tests needs no Python for it.
"""
import json
import sys
from collections import Counter
from pathlib import Path

import ezdxf
from ezdxf import bbox, recover


def listed(doc):
    """The entities a plain query lists, in the order it visits them."""
    out = []
    seen = set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        block = doc.blocks.get(name)
        if block is None:
            return
        for e in block:
            out.append(e)
            if e.dxftype() == "INSERT":
                visit(e.dxf.name)

    layouts = [doc.layouts.get(name) for name in doc.layouts.names()]
    inserts = []
    for layout in layouts:
        for e in layout:
            out.append(e)
            if e.dxftype() == "INSERT":
                inserts.append(e.dxf.name)
    for name in inserts:
        visit(name)
    return out


def box(entities):
    """ezdxf's bounding box of the entities, and the handles of those it cannot bound (it raises for
    some real entities, such as a SPLINE with fewer knots than it wants)."""
    extents = bbox.BoundingBox()
    failed = []
    for e in entities:
        try:
            extents.extend(bbox.extents([e]))
        except Exception:
            failed.append(e.dxf.handle)
    if not extents.has_data:
        return None, failed
    return [list(map(float, extents.extmin)), list(map(float, extents.extmax))], failed


def read(path):
    """The document as read, before any audit changes it; recover mode only for what readfile refuses
    (recover mode audits as it reads: what it fixed is kept as `recover_fixes`)."""
    try:
        return ezdxf.readfile(str(path)), "readfile", []
    except Exception as error:
        doc, auditor = recover.readfile(str(path))
        refused = f"readfile: {type(error).__name__}: {error}"
        return doc, "recover", [refused] + [f"{e.code}: {e.message}" for e in auditor.fixes]


def facts(path):
    doc, mode, fixes = read(path)
    entities = listed(doc)
    msp = doc.modelspace()
    out = {
        "version": doc.dxfversion,
        "read": mode,
        "recover_fixes": fixes,
        "listed": len(entities),
        "by_type": dict(sorted(Counter(e.dxftype() for e in entities).items())),
        "by_layer": dict(sorted(Counter(e.dxf.layer for e in entities).items())),
        "model_space": len(msp),
    }
    out["model_bounds"], out["unbounded"] = box(msp)
    try:
        auditor = doc.audit()
        out["audit_errors"] = [f"{e.code}: {e.message}" for e in auditor.errors]
        out["audit_fixes"] = [f"{e.code}: {e.message}" for e in auditor.fixes]
    except Exception as error:  # ezdxf 0.18's audit fails on some real files: a fact, not a stop
        out["audit_failed"] = f"{type(error).__name__}: {error}"
    return out


def read_files(paths):
    """Facts of each path, an error instead for a file ezdxf cannot read, as one JSON object by path."""
    out = {}
    for path in paths:
        try:
            out[path] = facts(Path(path))
        except Exception as error:
            out[path] = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(out))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--read":
        read_files(sys.argv[2:])
        return
    corpus = Path(sys.argv[1] if len(sys.argv) > 1 else "test/fixtures/dxf-corpus")
    out = {"ezdxf": ezdxf.__version__, "files": {}}
    for path in sorted(corpus.glob("*.dxf")):
        try:
            out["files"][path.name] = facts(path)
        except Exception as error:  # a file ezdxf cannot read is a fact too
            out["files"][path.name] = {"error": f"{type(error).__name__}: {error}"}
    (corpus / "facts.json").write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    print(f"{len(out['files'])} files -> {corpus / 'facts.json'}")


if __name__ == "__main__":
    main()
