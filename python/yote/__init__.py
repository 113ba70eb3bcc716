"""Yoté for Python.

- :class:`Board` (with :class:`Move` and :class:`Outcome`): a game with the
  rules in the process, as python-chess's ``chess.Board``: legal moves,
  push/pop, the game end and the rule that ended it, position text, perft.
  It is the Rust rules library itself (the native part, ``yote._yote``,
  built by ``pip install .`` where Rust is installed).
- :mod:`yote.engine`: a client for the yote engine (and other UGI/UCI
  engines), shaped after ``chess.engine``. Pure Python: it works where the
  native part is not built, taking a :class:`yote.engine.Position` (plain
  data) instead of a :class:`Board`.
"""

#: Player 1, who moves first (python-chess's ``chess.WHITE``).
WHITE = True
#: Player 2.
BLACK = False

try:
    from yote._yote import Board, IllegalMoveError, Move, Outcome, presets
except ImportError as _missing:  # the pure-Python install: no Rust was there
    _NATIVE_ERROR = _missing

    def __getattr__(name):
        if name in ("Board", "IllegalMoveError", "Move", "Outcome", "presets"):
            raise ImportError(
                "yote.%s needs the native part of the package, which is not built here (%s); "
                "install the package with `pip install .` where Rust is installed. "
                "yote.engine works without it." % (name, _NATIVE_ERROR)
            )
        raise AttributeError("module 'yote' has no attribute %r" % name)

    HAS_NATIVE = False
else:
    HAS_NATIVE = True

__all__ = ["BLACK", "Board", "HAS_NATIVE", "IllegalMoveError", "Move", "Outcome", "WHITE", "presets"]
