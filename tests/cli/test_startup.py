"""Start-up: the command line's help and targets import no heavy module, numba's kernels
compile once per install, into a cache any install can write, announced on the first run,
load from it without numba's registries, and running one does not import scipy."""

import json
import os
import subprocess
import sys

from _helpers import jpegai_args

HEAVY = ("networkx", "onnx", "onnxruntime", "numba", "waiexport.reference")


def test_help_and_targets_import_nothing_heavy():
    code = (
        "import sys; from click.testing import CliRunner; from waiexport.cli import main; "
        "[CliRunner().invoke(main, a) for a in (['--help'], ['targets', 'list'], "
        "['targets', 'show', 'tosa'])]; "
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


EXIT = """
import atexit, gc
from waiexport.cli import main
try:
    main(["inspect", "examples/tiny_synth.whg1"])
except SystemExit:
    pass
before = gc.get_freeze_count()
atexit._run_exitfuncs()
print(gc.get_threshold()[0], before, gc.get_freeze_count() > 10000)
"""


def test_a_command_leaves_what_it_made_to_the_process_s_end():
    # Python's last collection at exit walked every object a command had made: 0.2–0.3 s of
    # the main job; frozen by the exit handler, they are left to the process's end. Young
    # collections every 700 new objects pushed full ones mid-run (0.1 s apiece)
    out = subprocess.run(
        [sys.executable, "-c", EXIT],
        capture_output=True,
        text=True,
        check=True,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
    ).stdout
    assert out.strip().splitlines()[-1] == "100000 0 True"


DECODE = """
import json, numpy as np
from waiexport.builder import GraphBuilder, conv
from waiexport.reference import decode
from waiexport.reference.kernels import conv_acc
b = GraphBuilder()     # 9.4 M products: a sum that runs compiled
b.output(b.op("conv", b.input(64, -5, 5), conv(np.ones((64, 64, 3, 3), int), pad=1)))
decode(b.build(), [np.ones((64, 16, 16), int)], [])
s = conv_acc.kernel.stats
import sys
print(json.dumps({"hits": sum(s.cache_hits.values()), "misses": sum(s.cache_misses.values()),
                  "registries": "numba.cpython.listobj" in sys.modules}))
"""


def test_kernels_compile_once_into_the_user_cache(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", DECODE], capture_output=True, text=True, env=env, check=True
        )
        for _ in range(2)
    ]
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert "compiling the reference's integer kernels" in runs[0].stderr
    assert first["misses"] >= 1
    assert "compiling" not in runs[1].stderr
    # a compile fills numba's registries; a load from the cache does without them
    assert first["registries"] and not second["registries"]
    assert (
        second == {"hits": second["hits"], "misses": 0, "registries": False} and second["hits"] >= 1
    )
    assert any((tmp_path / "waiexport" / "numba").rglob("*.nbi"))


WALK = """
import json, sys
from waiexport.reference import kernels     # names numba's cache folder before numba's import
from waiexport.reference.stage.mans_decode import decode_fac
from waiexport.reference.stage.mans_encode import encode_fac
from numba.core import entrypoints
from numba.core.runtime import rtsys
rows, symbols = [list(range(0, 252, 4))], [[0, 5, 63, 17, 2]]
assert decode_fac(encode_fac(rows, symbols), rows, [5]) == symbols
print(json.dumps({"runtime": rtsys._init, "extensions": entrypoints._already_initialized}))
"""


def test_a_cached_walk_starts_neither_numba_s_runtime_nor_its_extensions(tmp_path):
    # the runtime's start compiles it (15–20 ms), the extensions' scan reads every installed
    # package's entry points (12 ms): the entropy decode's walks need neither once compiled
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    first, second = (
        json.loads(
            subprocess.run(
                [sys.executable, "-c", WALK], capture_output=True, text=True, env=env, check=True
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        for _ in range(2)
    )
    assert first == {"runtime": True, "extensions": True}  # a compile needs both
    assert second == {"runtime": False, "extensions": False}


NO_SUM = """
import json, sys
import numpy as np
from waiexport.builder import GraphBuilder, conv
from waiexport.reference import decode
import waiexport.targets.engines.base, waiexport.targets.engines.worker
seen = []
for c, hw in ((0, 16), (2, 4), (64, 16)):    # no sum; 576 products; 9.4 M products
    b = GraphBuilder()
    x = b.input(max(c, 2), -5, 5)
    b.output(b.op("conv", x, conv(np.ones((c, c, 3, 3), int), pad=1)) if c else
             b.op("relu", x))
    decode(b.build(), [np.ones((max(c, 2), hw, hw), int)], [])
    seen.append("numba" in sys.modules)
print(json.dumps(seen))
"""


def test_numba_is_imported_where_a_sum_runs_compiled():
    # 0.3 s of every process that runs no large sum: an engine's worker, a graph without a
    # convolution, or with small ones only (the corpus, a self-check at the probe's sizes)
    out = subprocess.run(
        [sys.executable, "-c", NO_SUM], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [False, False, True]


KEPT_OUT = """
import json, sys
from waiexport.reference import kernels
print(json.dumps([m in sys.modules for m in ("numba", "scipy", "yaml")]))
"""


def test_numba_s_import_reads_neither_scipy_nor_pyyaml_only_to_check(tmp_path):
    # numba imports scipy to check its version (18 ms here) and PyYAML for a config file in
    # the working folder (17 ms): stand-ins on the path say whether they were imported
    (tmp_path / "scipy").mkdir()
    (tmp_path / "scipy" / "__init__.py").write_text("__version__ = '1.10.0'\n")
    (tmp_path / "yaml.py").write_text("def safe_load(f):\n    return {}\n")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }

    def imported():
        out = subprocess.run(
            [sys.executable, "-c", KEPT_OUT],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            check=True,
        ).stdout
        return json.loads(out.strip().splitlines()[-1])

    assert imported() == [True, False, False]
    (tmp_path / ".numba_config.yaml").write_text("{}\n")  # numba reads it with PyYAML
    assert imported() == [True, False, True]


def test_an_unwritable_cache_folder_runs_on_a_temporary_one_and_says_so(tmp_path):
    # a folder that cannot be made runs a command that compiles (numba writes its cache
    # there); a file in the folder's place is refused the same way, by user_cache alone
    (tmp_path / "a-file").write_text("")
    for cache, code in (("/proc/no-such-cache", None), (str(tmp_path / "a-file"), USER_CACHE)):
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        env.pop("NUMBA_CACHE_DIR", None)
        args = (
            ["-c", code]
            if code
            else [
                "-m",
                "waiexport.cli",
                *jpegai_args(tmp_path / "decoded"),
                "--engine",
                "reference",
            ]
        )  # its entropy walks compile
        r = subprocess.run(
            [sys.executable, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
        )
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        said = [line for line in r.stderr.splitlines() if "cannot use the cache folder" in line]
        assert len(said) == 1 and f"{cache}/waiexport (" in said[0]
        assert "written to" in r.stdout if not code else r.stdout.strip() == "temporary"


USER_CACHE = """
import tempfile
from waiexport.caches import user_cache
folder = user_cache("numba")
assert user_cache("numba") == folder and folder.is_dir()
print("temporary" if str(folder).startswith(tempfile.gettempdir()) else folder)
"""


INTERRUPT_AT = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            {how}
sys.meta_path.insert(0, Interrupt())
from waiexport.cli import main
main(["inspect", "examples/tiny_synth.whg1"])
"""


def test_an_interrupt_at_a_named_import_point_is_one_line_and_exit_130():
    root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    # a Ctrl-C while numpy is imported, and one that a C extension's initialisation turns
    # into an ImportError (as onnxruntime's did, 1 run in 20)
    for module, how in (
        ("numpy", "raise KeyboardInterrupt"),
        (
            "numpy",
            "try:\n                raise KeyboardInterrupt\n"
            "            except KeyboardInterrupt:\n"
            "                raise ImportError('initialization failed')",
        ),
    ):
        r = subprocess.run(
            [sys.executable, "-c", INTERRUPT_AT.format(module=module, how=how)],
            capture_output=True,
            text=True,
            cwd=root,
        )
        assert r.returncode == 130 and r.stderr == "waiexport: interrupted\n", r.stderr


NO_SCIPY = (
    DECODE
    + """
import sys
print("decoded", file=sys.stderr, flush=True)
import scipy.linalg
"""
)


def test_a_kernel_run_leaves_scipy_linalg_unimported_and_importable(tmp_path):
    # a stand-in scipy whose linalg says when it is imported: numba's first kernel load
    # imported it (0.25-0.6 s where scipy is installed) only to look for BLAS
    linalg = tmp_path / "scipy" / "linalg"
    linalg.mkdir(parents=True)
    (tmp_path / "scipy" / "__init__.py").write_text("__version__ = '1.14.0'\n")
    (linalg / "__init__.py").write_text(
        "import sys\nprint('scipy.linalg imported', file=sys.stderr)\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    r = subprocess.run(
        [sys.executable, "-c", NO_SCIPY], capture_output=True, text=True, env=env, check=True
    )
    assert r.stderr.splitlines()[-2:] == ["decoded", "scipy.linalg imported"], r.stderr
