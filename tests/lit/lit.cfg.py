# lit configuration for the pass tests (pass/*.ll) and the end-to-end tests
# (e2e/*.test and e2e/*.c with RUN lines).
import os
import lit.formats

config.name = "pisa-char"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".test", ".c", ".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pisa_obj_root, "tests", "lit")

# Tests must not see the user's pisa-char settings.
for var in list(os.environ):
    if var.startswith("PISA_"):
        del os.environ[var]
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.pisa_bin_dir, os.environ.get("PATH", "")])
config.environment["LC_ALL"] = "C"

# Optional toolchains: OpenMP (libomp next to clang) and MPI (mpirun, and
# libpisa_mpi, built when CMake found MPI).
import shutil
import subprocess
if os.path.exists(os.path.join(config.llvm_tools_dir, "..", "lib", "libomp.so")):
    config.available_features.add("openmp")
if shutil.which("mpirun") and os.path.exists(
        os.path.join(config.pisa_lib_dir, "libpisa_mpi.so")):
    config.available_features.add("mpi")

# Root: tests that mount a small tmpfs in a mount namespace of their own;
# only where a private mount namespace can be made (not in a chroot, whose
# root is no mount point).
if os.geteuid() == 0 and shutil.which("unshare") and subprocess.call(
        ["unshare", "-m", "true"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("root")

plugin = os.path.join(config.pisa_lib_dir, "pisa-pass.so")
tools = os.path.join(config.pisa_src_root, "tests", "tools")
config.substitutions += [
    ("%plugin", plugin),
    ("%opt", f"{config.llvm_tools_dir}/opt -load-pass-plugin={plugin}"),
    ("%clang", f"{config.llvm_tools_dir}/clang"),
    ("%pisa-cc", os.path.join(config.pisa_bin_dir, "pisa-cc")),
    ("%pisa-cxx", os.path.join(config.pisa_bin_dir, "pisa-c++")),
    ("%pisa-char", os.path.join(config.pisa_bin_dir, "pisa-char")),
    ("%validate", f"{config.python} {tools}/validate.py"),
    ("%jcheck", f"{config.python} {tools}/jcheck.py"),
    ("%same-metrics", f"{config.python} {tools}/same_metrics.py"),
    ("%peak-rss", f"{config.python} {tools}/peak_rss.py"),
    ("%expect-status", f"{config.python} {tools}/expect_status.py"),
    ("%usage-error", f"{config.python} {tools}/expect_usage_error.py"),
    ("%python", config.python),
    ("%srcroot", config.pisa_src_root),
    ("%builddir", config.pisa_obj_root),
    ("%libdir", config.pisa_lib_dir),
    ("%inputs", os.path.join(config.test_source_root, "e2e", "Inputs")),
]
