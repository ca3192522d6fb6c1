# The package is used from the source tree: bindings/python goes on sys.path.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
