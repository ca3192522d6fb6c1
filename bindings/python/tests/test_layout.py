"""Every ctypes struct of the binding against the C compiler's layout of the header's struct:
a probe program prints sizeof and every field's offset, compiled from include/arenaplan."""
import ctypes
import os
import shutil
import subprocess

import pytest

import arenaplan
import modelwriter

ALL_STRUCTS = arenaplan.STRUCTS + modelwriter.STRUCTS
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def probe_source():
    lines = ["#include <arenaplan/arenaplan.h>", "#include <stddef.h>", "#include <stdio.h>",
             "int main(void) {"]
    for s in ALL_STRUCTS:
        lines.append('  printf("%s %%zu\\n", sizeof(%s));' % (s.__name__, s.__name__))
        for name, _ in s._fields_:
            lines.append('  printf("%s.%s %%zu\\n", offsetof(%s, %s));'
                         % (s.__name__, name, s.__name__, name))
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_struct_layouts_match_the_headers(tmp_path):
    src = tmp_path / "probe.c"
    src.write_text(probe_source())
    exe = tmp_path / "probe"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-I", os.path.join(ROOT, "include"),
                    str(src), "-o", str(exe)], check=True)
    c = dict(line.split() for line in subprocess.run([str(exe)], check=True, text=True,
                                                     stdout=subprocess.PIPE).stdout.splitlines())
    py = {}
    for s in ALL_STRUCTS:
        py[s.__name__] = str(ctypes.sizeof(s))
        for name, _ in s._fields_:
            py["%s.%s" % (s.__name__, name)] = str(getattr(s, name).offset)
    assert py == c


def test_fields_cover_the_whole_struct():
    # A field left out at the end would not show as a wrong offset: the last field must end
    # where the struct ends (up to its alignment padding).
    for s in ALL_STRUCTS:
        name, ctype = s._fields_[-1]
        end = getattr(s, name).offset + ctypes.sizeof(ctype)
        assert ctypes.sizeof(s) - end < ctypes.alignment(s), s.__name__
