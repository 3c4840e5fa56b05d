# Fallback for the `looseversion` package where it is not installed (last on sys.path): the
# LooseVersion comparison nvFuser's utils use for torch versions ("2.11.0+cu130" >= "2.7.0").
# Invariant: compares as distutils' LooseVersion does (numbers numerically, other parts as text).

import re


class LooseVersion:
    _component = re.compile(r"(\d+ | [a-z]+ | \.)", re.VERBOSE)

    def __init__(self, vstring):
        self.vstring = str(vstring)
        parts = [x for x in self._component.split(self.vstring) if x and x != "."]
        self.version = [int(x) if x.isdigit() else x for x in parts]

    def _cmp(self, other):
        other = other if isinstance(other, LooseVersion) else LooseVersion(other)
        a, b = self.version, other.version
        for x, y in zip(a, b):
            if x == y:
                continue
            if type(x) is not type(y):
                x, y = str(x), str(y)
            return -1 if x < y else 1
        return (len(a) > len(b)) - (len(a) < len(b))

    def __lt__(self, o):
        return self._cmp(o) < 0

    def __le__(self, o):
        return self._cmp(o) <= 0

    def __gt__(self, o):
        return self._cmp(o) > 0

    def __ge__(self, o):
        return self._cmp(o) >= 0

    def __eq__(self, o):
        return self._cmp(o) == 0

    def __repr__(self):
        return f"LooseVersion({self.vstring!r})"
