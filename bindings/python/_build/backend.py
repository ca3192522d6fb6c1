"""A PEP 517 build backend with no dependencies: the wheel holds the arenaplan package and, when
found, libarenaplan.so (from $ARENAPLAN_LIB, else ../../build/ of this source tree), so the
installed package runs without the source tree. Without the library the wheel is pure Python
and finds it at run time ($ARENAPLAN_LIB, then the system's library path)."""
import base64
import hashlib
import os
import sysconfig
import zipfile

NAME, VERSION = "arenaplan", "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)

METADATA = """Metadata-Version: 2.1
Name: arenaplan
Version: %s
Summary: Plan and run TensorFlow Lite models with libarenaplan, with TensorFlow Lite's Python Interpreter API
Requires-Python: >=3.8
License: Apache-2.0
Provides-Extra: tflite
Requires-Dist: numpy; extra == "tflite"
""" % VERSION


def _library():
    env = os.environ.get("ARENAPLAN_LIB")
    if env and os.path.isfile(env):
        return env
    built = os.path.normpath(os.path.join(HERE, "..", "..", "build", "libarenaplan.so"))
    return built if os.path.isfile(built) else None


def _tag(lib):
    if not lib:
        return "py3-none-any"
    return "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _files(lib):
    pkg = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                yield "%s/%s" % (NAME, name), f.read()
    if lib:
        with open(os.path.realpath(lib), "rb") as f:
            yield "%s/libarenaplan.so" % NAME, f.read()


def _digest(data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "sha256=%s,%d" % (h, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    lib = _library()
    tag = _tag(lib)
    wheel = "%s-%s-%s.whl" % (NAME, VERSION, tag)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        extra = [(DIST_INFO + "/METADATA", METADATA.encode()),
                 (DIST_INFO + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: arenaplan-backend\n"
                                         "Root-Is-Purelib: %s\nTag: %s\n"
                                         % ("false" if lib else "true", tag)).encode())]
        for path, data in list(_files(lib)) + extra:
            z.writestr(path, data)
            record.append("%s,%s" % (path, _digest(data)))
        record.append(DIST_INFO + "/RECORD,,")
        z.writestr(DIST_INFO + "/RECORD", "\n".join(record) + "\n")
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ("pyproject.toml", "_build/backend.py"):
            t.add(os.path.join(HERE, rel), arcname="%s/%s" % (base, rel))
        for path, _ in _files(None):
            t.add(os.path.join(HERE, path), arcname="%s/%s" % (base, path))
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        data = METADATA.encode()
        info.size = len(data)
        import io
        t.addfile(info, io.BytesIO(data))
    return name
