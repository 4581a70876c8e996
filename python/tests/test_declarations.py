"""The three spellings of the ABI agree: hearth.h (hand-written, documented),
the header the Swift compiler generates from the @c functions, and the
Python cdef (hand-written)."""

import re
import subprocess

from conftest import ROOT

from hearth._cdef import CDEF

HANDLES = {"hearth_bytes", "hearth_grid", "hearth_dedupe", "hearth_trace", "hearth_detector", "hearth_incident", "hearth_sweep", "hearth_ingest", "hearth_schedule"}


def strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def declarations(text: str) -> dict[str, str]:
    """name → declaration of every hearth_ function (preprocessor lines left out)."""
    lines = [line for line in strip_comments(text).splitlines() if not line.lstrip().startswith("#")]
    body = " ".join(" ".join(lines).split())
    out = {}
    for m in re.finditer(r"((?:const\s+)?[\w\s\*]*?\b(hearth_\w+)\s*\(([^()]*)\))\s*(?:SWIFT_NOEXCEPT|SWIFT_WARN_UNUSED_RESULT|\s)*;", body):
        out[m.group(2)] = m.group(1).strip()
    return out


def canonical_type(spelled: str) -> str:
    """A C type, const placement and nullability normalised; a pointer to an
    opaque handle is a pointer to void (Swift's OpaquePointer prints so)."""
    spelled = re.sub(r"_Nullable|_Nonnull|_Null_unspecified|SWIFT_EXTERN", " ", spelled)
    tokens = re.findall(r"\*|\w+", spelled)
    base, levels, const0 = [], [], False
    for t in tokens:
        if t == "*":
            levels.append(False)
        elif t == "const":
            if levels:
                levels[-1] = True
            else:
                const0 = True
        elif not levels:
            base.append(t)
    base_name = " ".join(base)
    if base_name in HANDLES:
        base_name, const0 = "void", False
    return ("const " if const0 else "") + base_name + "".join("*" + ("const" if c else "") for c in levels)


def signature(declaration: str, name: str) -> tuple[str, tuple[str, ...]]:
    head, params = declaration.split(name, 1)
    params = params.strip()[1:-1].strip()
    parameter_types = []
    if params and params != "void":
        for p in params.split(","):
            # Every parameter is named in both headers: drop the name (the last word).
            p = re.sub(r"_Nullable|_Nonnull", " ", p).strip()
            parameter_types.append(canonical_type(re.sub(r"\w+$", "", p)))
    return canonical_type(head), tuple(parameter_types)


def test_every_declaration_of_the_header_is_in_the_cdef_verbatim():
    header = (ROOT / "include" / "hearth.h").read_text()
    cdef = CDEF
    def items(raw):
        text = " ".join(strip_comments(raw).split())
        defines = {d for d in re.findall(r"#define (HEARTH_\w+) (\S+)", text) if d[0] != "HEARTH_H"}
        typedefs = set(re.findall(r"typedef struct \w+ \{[^}]*\} \w+;|typedef struct \w+ \w+;", text))
        return defines, typedefs, declarations(raw)
    h_defines, h_types, h_functions = items(header)
    c_defines, c_types, c_functions = items(cdef)
    assert c_defines == h_defines
    assert c_types == h_types
    assert c_functions == h_functions
    assert len(h_functions) >= 50


def generated_header(tmp_path, module: str) -> str:
    """The header the compiler writes for the @c functions of `module`
    (HearthC: libhearth; HearthCLab: the sweep libhearth_lab.so adds)."""
    release = subprocess.run(["swift", "build", "-c", "release", "--scratch-path", ".build/libhearth-build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    out = tmp_path / f"{module}.h"
    sources = sorted(str(p) for p in (ROOT / "Sources" / module).rglob("*.swift"))
    maps = [f"{release}/CHearth.build/module.modulemap", f"{release}/_HearthShims.build/module.modulemap", str(ROOT / "Sources" / "CBLAS" / "module.modulemap"), str(ROOT / "Sources" / "CLAPACKE" / "module.modulemap")]
    # The modules share `package` declarations (HearthCLab builds on HearthC's
    # handles) under the package name SwiftPM gave the build (the checkout's).
    package = re.search(r'"-package-name","([^"]+)"', (ROOT / ".build" / "libhearth-build" / "release.yaml").read_text()).group(1)
    command = ["swiftc", "-typecheck", "-parse-as-library", "-module-name", module, "-package-name", package, *sources, "-I", f"{release}/Modules"]
    for m in maps:
        command += ["-Xcc", f"-fmodule-map-file={m}"]
    command += ["-emit-clang-header-path", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return out.read_text()


def test_the_hand_written_header_matches_the_one_the_compiler_generates(tmp_path):
    theirs = {}
    for module in ("HearthC", "HearthCLab"):
        generated = generated_header(tmp_path, module)
        # libhearth's @c functions use the header's own structs: the generated header includes it.
        assert module != "HearthC" or re.search(r"#include <[^>]*include/hearth\.h>", generated)
        functions = {k: v for k, v in declarations(generated).items() if "SWIFT" not in k}
        # The lab library adds the sweep and nothing else; libhearth has no sweep.
        assert all(k.startswith("hearth_sweep_") == (module == "HearthCLab") for k in functions), module
        theirs.update(functions)
    ours = declarations((ROOT / "include" / "hearth.h").read_text())
    assert sorted(ours) == sorted(theirs), "functions differ: " + str(set(ours) ^ set(theirs))
    for name in ours:
        assert signature(ours[name], name) == signature(theirs[name], name), name


def test_the_comparison_sees_a_changed_parameter_type():
    a = "int32_t hearth_x(int64_t count, const double *lat_deg)"
    b = "int32_t hearth_x(int64_t count, double const * _Nullable lat_deg)"
    c = "int32_t hearth_x(int64_t count, double * _Nullable lat_deg)"
    assert signature(a, "hearth_x") == signature(b, "hearth_x")
    assert signature(a, "hearth_x") != signature(c, "hearth_x")
    assert signature("void hearth_y(const hearth_grid *grid, hearth_grid **out)", "hearth_y") == signature("void hearth_y(void * _Nullable grid, void * _Nullable * _Nullable out_)", "hearth_y")


def test_the_docs_say_places_can_be_changed_between_batches():
    """Issue 29.12: hearth_ingest_reconfigure exists (ABI 1.1); neither the header nor the guide
    may still say that places are fixed for a handle's life."""
    header = (ROOT / "include" / "hearth.h").read_text()
    guide = (ROOT / "docs" / "guides" / "c-abi.md").read_text()
    create = header[header.index("A pipeline (every engine"):header.index("int32_t hearth_ingest_create")]
    assert "hearth_ingest_reconfigure" in create
    for text in (header, guide):
        flat = " ".join(text.split())
        assert "no reconfiguration between batches" not in flat
        assert "places are fixed per handle" not in flat
        assert "fixed for the handle's life" not in flat
