"""The module path of tflite_runtime.interpreter / ai_edge_litert.interpreter:
`import arenaplan.interpreter as tflite` or `from arenaplan.interpreter import Interpreter`."""
from .tflite_api import (Interpreter, InterpreterWithCustomOps, SignatureRunner,  # noqa: F401
                         OpResolverType, load_delegate, Delegate)

__all__ = ["Interpreter", "InterpreterWithCustomOps", "SignatureRunner", "OpResolverType",
           "load_delegate", "Delegate"]
