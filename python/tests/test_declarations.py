"""The ABI is spelled once: hearth.h (hand-written, documented) agrees with
the header the Swift compiler generates from the @c functions, and the
Python cdef is derived from hearth.h (hearth/_cdef.py), never retyped."""

import ast
import re
import subprocess

import cffi
import pytest

from conftest import ROOT

from hearth import _cdef
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
    assert _cdef.header_path() == ROOT / "include" / "hearth.h"
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


def test_a_declaration_added_to_the_header_reaches_python_with_no_edit():
    """Another branch adds an ingest function, a struct and a constant to
    hearth.h only: the derived cdef has them, and cffi binds them."""
    header = (ROOT / "include" / "hearth.h").read_text()
    added = header.replace(
        "#ifdef __cplusplus\n}",
        "/** A new call (a comment cffi must not see). */\n"
        "#define HEARTH_EVENT_SOMETHING_NEW 7 /* a new kind */\n"
        "typedef struct hearth_ingest_extra { int64_t fixes; double seconds; } hearth_ingest_extra;\n"
        "int32_t hearth_ingest_something(hearth_ingest *ingest, const hearth_fixes *fixes,\n"
        "    hearth_ingest_extra *out);\n\n#ifdef __cplusplus\n}",
    )
    assert added != header
    ffi = cffi.FFI()
    ffi.cdef(_cdef.cdef(added))
    assert "hearth_ingest_something" in _cdef.cdef(added)
    assert ffi.sizeof("hearth_ingest_extra") == 16
    assert ffi.typeof("int32_t(*)(hearth_ingest *, const hearth_fixes *, hearth_ingest_extra *)")
    assert _cdef.constants(added)["HEARTH_EVENT_SOMETHING_NEW"] == 7
    assert _cdef.codes("HEARTH_EVENT_", added)[7] == "somethingNew"
    # And the unchanged header gives exactly today's cdef (the two differ by the addition only).
    assert _cdef.cdef(header) == CDEF


def test_a_constant_cffi_cannot_bind_is_refused_not_dropped():
    header = (ROOT / "include" / "hearth.h").read_text().replace(
        "#define HEARTH_OK 0", "#define HEARTH_OK 0\n#define HEARTH_TIMEOUT_S 2.5")
    with pytest.raises(ValueError, match="HEARTH_TIMEOUT_S"):
        _cdef.cdef(header)


def test_preprocessing_drops_the_guard_the_includes_and_the_cplusplus_wrapper():
    out = _cdef.cdef((ROOT / "include" / "hearth.h").read_text())
    assert "#ifndef" not in out and "#include" not in out and 'extern "C"' not in out and "HEARTH_H" not in out
    assert "/*" not in out and "//" not in out
    # Every line left is a constant or C: the full header's declarations, minus its prose.
    assert len(_cdef.constants(out)) == len(re.findall(r"^#define HEARTH_\w+ \S", (ROOT / "include" / "hearth.h").read_text(), re.M))


@pytest.mark.parametrize("prefix", ["HEARTH_FIX_", "HEARTH_FIELD_", "HEARTH_DEDUPE_", "HEARTH_OUTCOME_", "HEARTH_ACTION_", "HEARTH_END_", "HEARTH_EVENT_", "HEARTH_CONDITION_"])
def test_each_table_of_names_is_the_header_s_family_counted_from_zero(prefix):
    """Frames build categoricals from these tables by position: codes 0, 1, … with no gap."""
    table = _cdef.codes(prefix)
    assert list(table) == list(range(len(table)))
    header = (ROOT / "include" / "hearth.h").read_text()
    assert len(table) == len(re.findall(rf"^#define {prefix}\w+ ", header, re.M))


def test_the_names_python_gives_codes_are_the_ones_it_always_gave():
    from hearth import _codes

    assert _codes.EVENT_KINDS == {0: "rejected", 1: "sharedFrame", 2: "geofence", 3: "speedAlert", 4: "suddenStop", 5: "trip", 6: "stay"}
    assert _codes.NAMED_BY == {0: None, 1: "fence", 2: "placeAt"}
    assert _codes.REJECTION_NAMES == {0: "accepted", 1: "inFuture", 2: "tooOld", 3: "accuracyMissing", 4: "accuracyOutOfRange",
                                      5: "speedOutOfRange", 6: "headingOutOfRange", 7: "altitudeOutOfRange", 8: "batteryOutOfRange"}
    assert _codes.FIELD_NAMES == {0: "time", 1: "latitude", 2: "longitude", 3: "horizontalAccuracy", 4: "speed", 5: "heading",
                                  6: "altitude", 7: "batteryLevel"}
    assert _codes.DEDUPE_OUTCOMES == {0: "inserted", 1: "duplicate", 2: "stillAdopted"}
    assert _codes.OUTCOMES == {0: "possibleImpact", 1: "silent", 2: "suppressed"}
    assert _codes.ACTIONS == {0: "none", 1: "ask", 2: "send", 3: "waitUntil", 4: "finished"}
    assert _codes.ENDS == {0: "dismissed", 1: "delivered", 2: "refused", 3: "droppedAfterAnHour", 4: "otherAccount"}
    assert len(_codes.CONDITIONS) == 11 and _codes.CONDITIONS[0] == "jolt"


def retyped_constants(source: str) -> list[str]:
    """Spots of a module where a code of the header is written as a bare
    number: a dict literal keyed by integers, or range(<integer>) over codes
    (as `hearth_condition_name(i) for i in range(11)` was)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) and type(k.value) is int for k in node.keys):
            found.append(f"line {node.lineno}: a dict keyed by integers")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "range" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Constant) and type(node.args[0].value) is int:
            found.append(f"line {node.lineno}: range({node.args[0].value})")
    return found


def test_no_module_of_the_package_retypes_a_code_of_the_header():
    offenders = {str(p.relative_to(ROOT)): retyped_constants(p.read_text()) for p in sorted((ROOT / "python" / "hearth").rglob("*.py"))}
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) >= 10


def test_the_retyping_check_sees_a_table_of_codes():
    assert retyped_constants('NAMED_BY = {0: None, 1: "fence"}') and retyped_constants("x = [f(i) for i in range(11)]")
    assert not retyped_constants('GATES = {"on": lib.HEARTH_GATE_ON}') and not retyped_constants("range(len(x))")


def test_every_handle_type_states_its_ownership_lifetime_and_threads():
    """Issue 30.4: the header says, for each opaque handle, who owns it, how long it
    and what it hands out live, and from which threads it may be used."""
    header = (ROOT / "include" / "hearth.h").read_text()
    opaque = re.findall(r"typedef struct (hearth_\w+) \1;", header)
    assert set(opaque) == HANDLES
    for name in opaque:
        before = header[: header.index(f"typedef struct {name} {name};")].rstrip()
        assert before.endswith("*/"), f"{name}: no comment right above its typedef"
        comment = " ".join(before[before.rindex("/**"):].replace("*", " ").split())
        for label in ("Ownership:", "Lifetime:", "Threads:"):
            assert label in comment, f"{name}: its comment says nothing under {label}"
        assert "hearth_release" in comment, name
