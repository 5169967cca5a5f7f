#!/usr/bin/env python3
"""Drafts manifest entries for LocalStack's recorded Step Functions cases and copies their data.

Reads a bare clone of localstack/localstack (git show), never runs its code. For each snapshot key of the
files named on the command line it finds the template the Python test loads (a constant such as
``ST.PARALLEL_STATE``, or the constant chosen by the test's ``[id]``), converts that JSON5 template to JSON
and copies snapshot, validation file and template under the output directory. Cases whose recorded history
calls a service other than Step Functions or DynamoDB, or whose test edits the template in code, are
reported and left out; the draft is reviewed by hand before it is committed.

usage: draft.py GIT_DIR OUT_DIR snapshot-stem...   (e.g. scenarios/test_base_scenarios)
"""
import ast
import json
import os
import re
import subprocess
import sys

V2 = "tests/aws/services/stepfunctions/v2/"
TEMPLATES = "tests/aws/services/stepfunctions/templates/"


def show(git_dir, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path], check=True,
                          capture_output=True, text=True).stdout


def json5_to_json(text):
    """Comments out, trailing commas out, single-quoted strings and bare keys quoted: JSON5 as the templates use it."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            quote, j, buf = c, i + 1, []
            while text[j] != quote:
                if text[j] == "\\":
                    nxt = text[j + 1]
                    if nxt == "'" and quote == "'":
                        buf.append("'")
                    elif nxt == "\n":
                        pass
                    else:
                        buf.append(text[j:j + 2])
                    j += 2
                    continue
                if text[j] == '"' and quote == "'":
                    buf.append('\\"')
                else:
                    buf.append(text[j])
                j += 1
            out.append('"' + "".join(buf) + '"')
            i = j + 1
        elif text.startswith("//", i):
            i = text.index("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif re.match(r"[A-Za-z_$][A-Za-z0-9_$]*\s*:", text[i:]) and (not out or out[-1].strip()[-1:] in "{,"):
            m = re.match(r"([A-Za-z_$][A-Za-z0-9_$]*)", text[i:])
            out.append('"' + m.group(1) + '"')
            i += len(m.group(1))
        else:
            out.append(c)
            i += 1
    joined = "".join(out)
    joined = re.sub(r",(\s*[}\]])", r"\1", joined)
    return json.loads(joined)


def template_constants(git_dir):
    """CLASS_ALIAS-independent map: constant name -> template path (relative to TEMPLATES)."""
    names = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD", TEMPLATES],
                           check=True, capture_output=True, text=True).stdout.split()
    constants = {}
    for path in names:
        if not path.endswith("_templates.py"):
            continue
        folder = os.path.dirname(path)[len(TEMPLATES):]
        src = show(git_dir, path)
        for cls in [n for n in ast.parse(src).body if isinstance(n, ast.ClassDef)]:
            for stmt in cls.body:
                if isinstance(stmt, (ast.AnnAssign, ast.Assign)):
                    target = stmt.target if isinstance(stmt, ast.AnnAssign) else stmt.targets[0]
                    value = stmt.value
                    if isinstance(value, ast.Call) and getattr(value.func, "attr", "") == "join":
                        rel = [a.value for a in value.args if isinstance(a, ast.Constant)]
                        if rel:
                            constants.setdefault(cls.name, {})[target.id] = folder + "/" + rel[-1]
    return constants


def aliases(tree):
    """import aliases: ST -> ScenariosTemplate."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                out[a.asname or a.name] = a.name
    return out


def main():
    git_dir, out_dir, stems = sys.argv[1], sys.argv[2], sys.argv[3:]
    constants = template_constants(git_dir)
    entries, skipped = [], []
    for stem in stems:
        snapshot = json.loads(show(git_dir, V2 + stem + ".snapshot.json"))
        src = show(git_dir, V2 + stem + ".py")
        tree = ast.parse(src)
        alias = aliases(tree)
        funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        for key, value in snapshot.items():
            test = key.split("::", 1)[1]
            fname = re.sub(r"\[.*", "", test.split("::")[-1])
            param = re.search(r"\[(.*)\]$", test)
            func = funcs.get(fname)
            refs = []
            for node in ast.walk(func) if func else []:
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    cls = alias.get(node.value.id)
                    if cls in constants and node.attr in constants[cls]:
                        refs.append(constants[cls][node.attr])
            if func is not None:
                for deco in func.decorator_list:
                    for node in ast.walk(deco):
                        if isinstance(node, ast.keyword) and node.arg == "ids" and param:
                            ids = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
                            if param.group(1) in ids:
                                idx = ids.index(param.group(1))
                                lst = [n for n in ast.walk(deco) if isinstance(n, ast.List)][0]
                                chosen = [r for r in ast.walk(lst.elts[idx]) if isinstance(r, ast.Attribute)]
                                picked = [constants[alias[c.value.id]][c.attr] for c in chosen
                                          if isinstance(c.value, ast.Name) and alias.get(c.value.id) in constants
                                          and c.attr in constants[alias[c.value.id]]]
                                if picked:
                                    refs = picked
                if param and len(set(refs)) > 1:
                    by_name = [r for r in refs if os.path.basename(r).split(".")[0].upper() == param.group(1).upper()]
                    if by_name:
                        refs = by_name
            body = ast.get_source_segment(src, func) if func else ""
            edits = bool(re.search(r"(template|definition)\[[^\]]+\]\s*(\[[^\]]+\]\s*)*=|\.replace\(", body or ""))
            services = set()
            recorded = value["recorded-content"]
            for rec in recorded.values():
                for e in rec.get("events", []) if isinstance(rec, dict) else []:
                    d = e.get("taskScheduledEventDetails")
                    if d:
                        services.add(d["resourceType"] + ":" + d["resource"])
                    if e["type"].startswith("Lambda") or e["type"].startswith("Activity"):
                        services.add(e["type"])
            foreign = sorted(s for s in services if not (s.startswith("dynamodb:") or s.startswith("states:")
                                                         or s.startswith("aws-sdk:dynamodb")))
            reason = None
            if foreign:
                reason = "calls " + ", ".join(foreign)
            elif len(set(refs)) != 1:
                reason = "template not found" if not refs else "templates: " + ", ".join(sorted(set(refs)))
            elif edits:
                reason = "test edits the template"
            if reason:
                skipped.append((stem, test, reason))
                continue
            entry = {"snapshot": stem, "test": test, "template": refs[0].replace(".json5", ".json")}
            if "SfnNoneRecursiveParallelTransformer" in (body or ""):
                entry["parallelEventsSorted"] = True
            entries.append(entry)
    for e in entries:
        tpath = os.path.join(out_dir, "templates", e["template"])
        os.makedirs(os.path.dirname(tpath), exist_ok=True)
        with open(tpath, "w") as f:
            json.dump(json5_to_json(show(git_dir, TEMPLATES + e["template"].replace(".json", ".json5"))), f, indent=2)
            f.write("\n")
    for stem in stems:
        for suffix in (".snapshot.json", ".validation.json"):
            p = os.path.join(out_dir, "snapshots", stem + suffix)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(show(git_dir, V2 + stem + suffix))
    json.dump({"entries": entries, "skipped": skipped}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
