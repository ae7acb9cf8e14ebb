# Sourced by the ladder scripts (BIN set to the tavlei binary): `board_side VARIANT` prints the
# side of the preset's board (9 for 9x9), by which each script picks its levels and game counts.
board_side() {
  local side
  side=$("$BIN" rules list | awk -v v="$1" '$1 == v { split($2, s, "x"); print s[1] }')
  [ -n "$side" ] || { echo "$(basename "$0"): no preset named $1" >&2; return 2; }
  echo "$side"
}
