#!/bin/bash
# checkpatch.sh - `make checkpatch` (run by `make check`): the kernel's
# checkpatch.pl --strict, from the copy `make deps` put in $CACHE/checkpatch,
# on every C file and header under drivers/ and include/ (--no-tree, one
# file at a time). Fails on any ERROR; WARNINGs and CHECKs are listed and
# counted, not fatal.
#
# One error is accepted, for one construct: COMPLEX_MACRO on an X-macro
# list, a "#define LIST(X) X(a, 1) X(b, 2) ..." whose body does nothing but
# invoke its parameter (or another such list, with the parameter as first
# argument). checkpatch cannot tell those from an expression that lacks its
# parentheses; every table of this project is one (and so are many of the
# kernel's). Any other COMPLEX_MACRO still fails.
#
# Environment: CACHE (default /var/cache/socpmu).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
CACHE=${CACHE:-/var/cache/socpmu}
checkpatch=$CACHE/checkpatch/checkpatch.pl

[[ -f $checkpatch ]] || { echo "checkpatch: $checkpatch is missing: run 'make deps'" >&2; exit 1; }

# is_xlist FILE LINE: is the #define at LINE an X-macro list?
is_xlist() {
	perl -e '
		my ($file, $line) = @ARGV;
		open(my $fh, "<", $file) or exit 1;
		my @l = <$fh>;
		my $def = "";
		for (my $i = $line - 1; $i < @l; $i++) {
			my $s = $l[$i];
			$def .= $s;
			last unless $s =~ /\\\s*$/;
		}
		$def =~ s/\\\s*\n/ /g;
		$def =~ s{/\*.*?\*/}{ }gs;
		$def =~ m/^\s*#\s*define\s+\w+\(([^)]*)\)(.*)$/s or exit 1;
		my %param = map { s/\s//gr => 1 } split(/,/, $1);
		my $body = $2;
		my $calls = 0;
		while ($body =~ s/^\s*(\w+)\s*\(//) {
			my $callee = $1;
			my ($depth, $args) = (1, "");
			while ($depth && length($body)) {
				my $c = substr($body, 0, 1, "");
				$depth++ if $c eq "(";
				$depth-- if $c eq ")";
				$args .= $c if $depth;
			}
			exit 1 if $depth;
			my ($first) = split(/,/, $args);
			$first //= "";
			$first =~ s/\s//g;
			exit 1 unless $param{$callee} || $param{$first};
			$calls++;
		}
		exit(($body =~ /^\s*$/ && $calls) ? 0 : 1);
	' "$1" "$2"
}

errors=0 accepted=0 warnings=0 checks=0
report=()
mapfile -t files < <(cd "$top" && find drivers include -type f \( -name '*.c' -o -name '*.h' \) | sort)
for f in "${files[@]}"; do
	out=$(cd "$top" && perl "$checkpatch" --strict --no-tree --terse --show-types \
		--no-summary -f "$f") || true
	while IFS= read -r line; do
		[[ -n $line ]] || continue
		case $line in
		*": ERROR:COMPLEX_MACRO:"*)
			ln=${line#"$f":}
			ln=${ln%%:*}
			if is_xlist "$top/$f" "$ln"; then
				accepted=$((accepted + 1))
				continue
			fi
			errors=$((errors + 1))
			;;
		*": ERROR:"*) errors=$((errors + 1)) ;;
		*": WARNING:"*) warnings=$((warnings + 1)) ;;
		*": CHECK:"*) checks=$((checks + 1)) ;;
		*) continue ;;
		esac
		report+=("$line")
	done <<<"$out"
done

((${#report[@]} == 0)) || printf '%s\n' "${report[@]}"
echo "checkpatch --strict: ${#files[@]} files, $errors errors, $warnings warnings, $checks checks ($accepted X-macro lists accepted)"
((errors == 0))
