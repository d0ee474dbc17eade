"""The pure bash interpreter: what it knows, what it keeps unknown, and that it never runs anything."""

import pytest

from rules.scripts.interpret import Interpreter
from rules.scripts.parse import parse
from rules.scripts.patterns import glob_match
from rules.scripts.values import Files, Unknown, normalize

TREE = {"benchmarks/lib.sh": b'export PORT="${PORT:-8888}"\nhelper() { SET_BY_HELPER=1; }\n',
        "benchmarks/single_node/x.sh": b"", "benchmarks/single_node": None}


def files(extra: dict | None = None) -> Files:
    tree = {**TREE, **(extra or {})}
    dirs = {"", "benchmarks", "benchmarks/single_node"}
    return Files(lambda p: tree.get(p) if isinstance(tree.get(p), bytes) else None,
                 lambda p: p in tree or p in dirs if p.startswith("benchmarks") else None,
                 lambda p: p in dirs if p.startswith("benchmarks") else None)


def run(text: str, env=None, path="benchmarks/single_node/t.sh", extra=None, **kw):
    script = parse(path, text.encode())
    return Interpreter(files(extra), env or {}, **kw).run(script)


def launched(result):
    return [" ".join(str(a) for a in launch.argv) for launch in result.launches if not launch.call]


@pytest.mark.parametrize(
    "text,expected",
    [
        ('A=1; B="$A-x"; cmd "$B"', ["cmd 1-x"]),
        ('ARGS=(--a "b c"); ARGS+=(--d); cmd "${ARGS[@]}"', ["cmd --a b c --d"]),
        ('X="--p 1 --q"; cmd $X', ["cmd --p 1 --q"]),
        ("cmd ${U:-dflt} ${E_MPTY:+alt} ${#ARR[@]}", ["cmd dflt 0"]),
        (
            "N=dsr1_1k1k; cmd ${N%%_*} ${N#*_} ${N/1k/2k} ${N//1k/2k} ${N^^} ${N:0:4}",
            ["cmd dsr1 1k1k dsr1_2k1k dsr1_2k2k DSR1_1K1K dsr1"],
        ),
        ("C=8; cmd $((C * 10)) $(( (C + 2) / 3 )) $((C > 4 ? 1 : 0))", ["cmd 80 3 1"]),
        ('S=$([[ "$F" == trt ]] && printf _trt || printf ""); cmd "x$S"', ["cmd x_trt"]),
        ('D=$(dirname "$0"); B=$(basename "$0" .sh); cmd "$D" "$B"', ["cmd benchmarks/single_node t"]),
        ('HERE=$(cd "$(dirname "$0")" && pwd); cmd "$HERE"', ["cmd benchmarks/single_node"]),
        ("C=4; while (( C < 50 )); do C=$((C*2)); done; cmd $C", ["cmd 64"]),
        ("for x in a b; do cmd $x; done", ["cmd a", "cmd b"]),
        ('case "$F" in tr*) cmd t ;; *) cmd o ;; esac', ["cmd t"]),
        ("if [[ -f benchmarks/single_node/x.sh ]]; then cmd yes; else cmd no; fi", ["cmd yes"]),
        ("if [ -d benchmarks/nope ]; then cmd yes; else cmd no; fi", ["cmd no"]),
        ('f() { cmd "$1" "$#"; }; f a b', ["cmd a 2"]),
        ('eval "cmd evaluated"', ["cmd evaluated"]),
        ('bash -c "cmd inner"', ["bash -c cmd inner", "cmd inner"]),
        ("FOO=1 cmd x", ["cmd x"]),
        ('L=(1 2 4 8); S=$(printf "%s, " "${L[@]}"); cmd "[${S%, }]"', ["cmd [1, 2, 4, 8]"]),
    ],
    ids=[
        "assign",
        "arrays",
        "word splitting",
        "defaults",
        "pattern ops",
        "arithmetic",
        "pure substitution",
        "dirname basename",
        "cd pwd",
        "while on known values",
        "for",
        "case glob",
        "-f from the listing",
        "-d absent",
        "function args",
        "eval of known text",
        "bash -c of known text",
        "prefix assignment",
        "printf reuses its format for every argument",
    ],
)
def test_known_values(text, expected):
    assert launched(run(text, env={"F": "trt"})) == expected


def test_arguments_keep_their_source_line():
    r = run('ARGS=(\n  --a 1\n)\nX="--b"\ncmd \\\n  "${ARGS[@]}" $X --c')
    (launch,) = [launch for launch in r.launches if str(launch.argv[0]) == "cmd"]
    assert [(a.text, a.line) for a in launch.argv] == [("cmd", 5), ("--a", 2), ("1", 2), ("--b", 4), ("--c", 6)]


def test_unknown_stays_unknown_with_the_reason():
    r = run('V=$(curl -s http://x); cmd "$V" "$(date)" $((Q / 0))')
    (launch,) = [launch for launch in r.launches if str(launch.argv[0]) == "cmd"]
    assert [a.known for a in launch.argv] == [True, False, False, False]
    assert "output of `curl" in launch.argv[1].why


def test_unknown_branch_merges_to_unknown_and_guards_commands():
    r = run('if [[ "$X" == 1 ]]; then A=1; cmd in; else A=2; fi; cmd "$A"', env={"X": Unknown("point")})
    guarded = [launch for launch in r.launches if str(launch.argv[0]) == "cmd" and launch.guard]
    assert [str(launch.argv[1]) for launch in guarded] == ["in"]
    (last,) = [launch for launch in r.launches if str(launch.argv[0]) == "cmd" and not launch.guard]
    assert not last.argv[1].known and "depends on" in last.argv[1].why


def test_exit_on_a_known_path_stops_and_an_or_exit_does_not():
    assert launched(run('[[ -f benchmarks/single_node/x.sh ]] || exit 1; cmd a; exit 0; cmd b')) == ["cmd a"]


def test_source_reads_files_as_data_and_library_functions_are_not_followed():
    r = run('source "$(dirname "$0")/../lib.sh"; helper; cmd "$PORT" "$SET_BY_HELPER"')
    (src,) = r.sources
    assert (src.target, src.exists, src.read) == ("benchmarks/lib.sh", True, True)
    (launch,) = [launch for launch in r.launches if str(launch.argv[0]) == "cmd"]
    assert launch.argv[1].text == "8888" and not launch.argv[2].known and "set by `helper`" in launch.argv[2].why
    assert [str(x.argv[0]) for x in r.launches if x.call] == ["helper"]


def test_exported_environment_reaches_launches():
    r = run('export A=1; B=2; C=3 cmd', env={"E": "e"})
    (launch,) = r.launches
    assert {k: v.value for k, v in launch.env.items()} == {"E": "e", "A": "1", "C": "3"}


def test_reads_of_inputs_are_recorded():
    r = run('cmd "$CONC" "${TP:-1}"', env={"CONC": "4", "TP": "8", "UNUSED": "x"})
    assert r.reads == {"CONC": "4", "TP": "8"}


@pytest.mark.parametrize("pattern,value,ok", [("*_mtp", "a_mtp", True), ("b?00", "b200", True),
                                              ("[!m]*", "mi355x", False), ("a\\*", "a*", True)])
def test_glob(pattern, value, ok):
    assert glob_match(pattern, value) is ok


def test_normalize_stays_in_the_repository():
    assert normalize("benchmarks/single_node", "../../x.sh") == "x.sh"
    assert normalize("benchmarks", "../../x.sh") is None and normalize("", "/etc/passwd") is None


HOSTILE_SCRIPTS = {
    "recursion": 'f() { f; }; f',
    "source loop": 'source "$0"',
    "endless loop": 'while true; do X="$X$X"; done',
    "doubling value": 'X=a; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do X="$X$X"; done; cmd "$X"',
    "garbage": "if then fi ) ((",
    "huge arithmetic": 'echo $(( 2 ** 100000 )) $(( 1 << 70 ))',
}


@pytest.mark.parametrize("text", list(HOSTILE_SCRIPTS.values()), ids=list(HOSTILE_SCRIPTS))
def test_hostile_scripts_end_in_bounded_work(text):
    # The bound is the interpreter's step budget (wall time of these inputs: benchmarks/bounded_inputs.py).
    path = "benchmarks/single_node/t.sh"
    it = Interpreter(files({path: text.encode()}), {})
    r = it.run(parse(path, text.encode()))
    assert isinstance(r.launches, list)
    assert it.steps <= it.max_steps + 1


def test_step_budget_is_reported():
    r = run("cmd a\n" * 200, max_steps=50)
    assert r.notes and "stopped after 50 steps" in r.notes[0]


# ---------------------------------------------------------------- here-document files (data, never written)

def test_here_documents_record_the_file_they_write():
    text = ('F=opts.yml\nB=16\n'
            'cat > $F << EOF\nbatch: $B\nprice: \\$5\nwho: $NOBODY_KNOWS\nEOF\n'
            'cat <<EOF >> "$F"\nmore: 1\nEOF\n'
            "cat > lit.yml <<'EOF'\nraw: $B\nEOF\n"
            'cat > tabs.yml <<-EOF\n\tindented: $B\nEOF\n'
            'cmd --config $F\n')
    r = run(text, env={"NOBODY_KNOWS": Unknown("per point")})
    w = r.written["opts.yml"]
    assert w.text == "batch: 16\nprice: $5\nwho: __rr_unknown_0__\nmore: 1\n"
    assert w.unknowns == {"__rr_unknown_0__": "$NOBODY_KNOWS"}
    assert w.lines == (4, 5, 6, 9) and not w.guarded
    assert r.written["lit.yml"].text == "raw: $B\n"  # a quoted delimiter: no expansion
    assert r.written["tabs.yml"].text == "indented: 16\n"
    (launch,) = [launch for launch in r.launches if launch.argv[0].text == "cmd"]
    assert set(launch.files) == {"opts.yml", "lit.yml", "tabs.yml"}


def test_here_documents_under_unknown_conditions_or_appends_are_marked_guarded():
    r = run('if [[ -n "$MAYBE" ]]; then\n  cat > a.yml <<EOF\nx: 1\nEOF\nfi\n'
            '[[ -n "$MAYBE" ]] && cat > b.yml <<EOF\ny: 1\nEOF\n'
            'cat <<EOF >> c.yml\nz: 1\nEOF\n', env={"MAYBE": Unknown("per point")})
    assert {k: v.guarded for k, v in r.written.items()} == {"a.yml": True, "b.yml": True, "c.yml": True}
    r2 = run('cat > a.yml <<EOF\nx: 1\nEOF\ncat > a.yml <<EOF\nx: 2\nEOF\n')
    assert r2.written["a.yml"].text == "x: 2\n" and r2.written["a.yml"].lines == (5,)
