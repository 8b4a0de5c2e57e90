# Replaces what lies between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in a document with a table
# (sourced by the benchmark and study scripts that regenerate tables in docs/).
# Usage: write_doc_table DOC NAME TABLE
write_doc_table() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
path, name, table = sys.argv[1:4]
s = open(path).read()
a, b = f'<!-- {name}:begin -->', f'<!-- {name}:end -->'
i, j = s.index(a) + len(a), s.index(b)
open(path, 'w').write(s[:i] + '\n' + table + '\n' + s[j:])
PY
  echo "wrote $1" >&2
}
