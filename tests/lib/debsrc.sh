# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# shellcheck shell=bash
# tests/lib/debsrc.sh - Debian's source packages through a private apt
# configuration, for the stages that build a dependency from its source
# (tests/musl/cmocka.sh, tests/compat/run.sh).  Sourced after
# tools/common.sh ($top, $jobs); never run.

# Suites whose source packages ./dev may fetch: the system's own ("-") and
# those of the Linux-PAM compatibility matrix (tests/compat/run.sh), each with its
# security suite (what an up-to-date machine of that release runs).
debsrc_suites=(- bullseye bookworm trixie)

# debsrc_init: a private apt configuration in _build/debsrc whose only
# sources are deb-src lines of the configured Debian mirror (and its
# debian-security archive) for debsrc_suites, so that `apt-get source`
# fetches Debian's source packages without touching the system's apt setup.
# Indexes are verified with the Debian archive keyring, never trusted
# unsigned.  The lists are kept between runs (a second update fetches the
# InRelease files only) and updated once per process.  Sets DEBSRC_APT
# (the apt-get command line), DEBSRC_URIS and DEBSRC_SUITE (the system's
# suite).  Returns 1 when no mirror is configured or no list could be had; a
# suite apt could not get or verify is named in DEBSRC_ERR and then has no
# packages (debsrc_version prints nothing).
debsrc_init() {
	local dir="$top/_build/debsrc" uri='' sec='' suite='' keyring='' s want='' seen=' '
	[ -n "${DEBSRC_APT:-}" ] && return 0
	read -r uri suite < <(apt-cache policy 2>/dev/null |
		awk '$NF == "Packages" && $3 ~ /^[a-z]+\/main$/ { split($3, a, "/"); print $2, a[1]; exit }') || true
	if [ -z "$uri" ]; then # no package lists yet: the sources file
		read -r uri suite < <(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '/^URIs:/ && !u { u = $2 } /^Suites:/ && !s { s = $2 } END { if (u && s) print u, s }') || true
	fi
	if [ -z "$uri" ]; then
		DEBSRC_ERR="no Debian mirror found in the apt configuration"
		echo "dev: $DEBSRC_ERR" >&2
		return 1
	fi
	sec=$(apt-cache policy 2>/dev/null |
		awk '$NF == "Packages" && $3 ~ /^[a-z]+-security\/main$/ { print $2; exit }') || true
	[ -n "$sec" ] || sec=${uri%/debian}/debian-security
	for keyring in /usr/share/keyrings/debian-archive-keyring.gpg /usr/share/keyrings/ubuntu-archive-keyring.gpg ''; do
		[ -z "$keyring" ] || [ -f "$keyring" ] && break
	done
	for s in "${debsrc_suites[@]}"; do
		[ "$s" = - ] && s=$suite
		case $seen in *" $s "*) continue ;; esac
		seen="$seen$s "
		want="${want}deb-src ${keyring:+[signed-by=$keyring] }$uri $s main"$'\n'
		want="${want}deb-src ${keyring:+[signed-by=$keyring] }$sec $s-security main"$'\n'
	done
	mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/apt/parts"
	printf '%s' "$want" >"$dir/apt/sources.list"
	DEBSRC_APT=(apt-get -q -o "Dir::Etc::SourceList=$dir/apt/sources.list"
		-o "Dir::Etc::SourceParts=$dir/apt/parts" -o "Dir::State::Lists=$dir/apt/lists"
		-o "Dir::Cache=$dir/apt/cache" -o APT::Sandbox::User=root)
	DEBSRC_URIS=("$uri" "$sec") DEBSRC_SUITE=$suite DEBSRC_ERR=
	"${DEBSRC_APT[@]}" update >"$dir/apt.log" 2>&1 || true
	if grep -qE '^(E|W): ' "$dir/apt.log"; then
		DEBSRC_ERR="apt-get update of the source lists: $(grep -E '^(E|W): ' "$dir/apt.log" | head -n 1)"
		echo "dev: $DEBSRC_ERR" >&2
	fi
	if ! find "$dir/apt/lists" -maxdepth 1 -name '*_Sources*' | grep -q .; then
		DEBSRC_APT=()
		DEBSRC_ERR=${DEBSRC_ERR:-"no source lists from $uri"}
		return 1
	fi
}

# debsrc_versions PKG SUITE: the versions of source package PKG in SUITE
# and its security suite ("-": the system's), newest first.
debsrc_versions() {
	local s=$2
	[ "$s" = - ] && s=$DEBSRC_SUITE
	"${DEBSRC_APT[@]/#apt-get/apt-cache}" madison "$1" 2>/dev/null |
		awk -F' *[|] *' -v s="$s" '$3 ~ (" " s "(-security)?/main Sources$") { print $2 }' |
		sort -urV
}

# debsrc_get PKG VERSION DIR: downloads that source package into DIR (after
# debsrc_init) with `apt-get source`.  When the mirror lacks some of its
# files there, each missing one is fetched from the pool of either archive
# by apt's own downloader against the SHA-256 of the signed index (the same
# check apt makes).  Returns 1 when a tarball cannot be had (a missing .dsc
# or signature is noted in the log only: debsrc_extract does without).
debsrc_get() {
	local pkg=$1 ver=$2 dest=$3 log="$top/_build/debsrc/apt.log" d hash f u p ok
	mkdir -p "$dest"
	(cd "$dest" && "${DEBSRC_APT[@]}" source --download-only "$pkg=$ver") >>"$log" 2>&1 && return 0
	d=$("${DEBSRC_APT[@]/#apt-get/apt-cache}" showsrc "$pkg" 2>/dev/null |
		awk -v v="$ver" '/^Version: / { m = ($2 == v) } m && /^Directory: / { print $2; exit }')
	[ -n "$d" ] || return 1
	while read -r hash _ f; do
		[ -f "$dest/$f" ] && [ "$(sha256sum <"$dest/$f" | cut -d' ' -f1)" = "$hash" ] && continue
		ok=
		for u in "${DEBSRC_URIS[@]}"; do
			for p in "$d" "${d/\/updates\//\/}" "pool/updates/${d#pool/}"; do
				/usr/lib/apt/apt-helper download-file "$u/$p/$f" "$dest/$f" "SHA256:$hash" \
					>>"$log" 2>&1 && { ok=1; break 2; }
			done
		done
		[ -n "$ok" ] && continue
		echo "dev: $f ($pkg $ver) is on no pool of ${DEBSRC_URIS[*]}" >>"$log"
		# the tarballs carry the source; a .dsc only lists them (its
		# hashes are the signed index's, which apt-helper checked)
		case $f in *.dsc | *.asc) ;; *) return 1 ;; esac
	done < <("${DEBSRC_APT[@]/#apt-get/apt-cache}" showsrc "$pkg" 2>/dev/null |
		awk -v v="$ver" '/^Version: / { m = ($2 == v) } /^[A-Z]/ { c = ($1 == "Checksums-Sha256:") }
			m && c && /^ / { print $1, $2, $3 }' | awk '!seen[$3]++')
}

# debsrc_extract PKG VERSION FROM DIR: the source package downloaded into
# FROM, unpacked into DIR with Debian's patches applied: dpkg-source -x
# when the .dsc is there, else the upstream tarball, the debian tarball
# and debian/patches/series in order with patch -p1.
debsrc_extract() {
	local pkg=$1 ver=$2 from=$3 dest=$4 orig deb p
	if [ -f "$from/${pkg}_$ver.dsc" ]; then
		dpkg-source --no-check -x "$from/${pkg}_$ver.dsc" "$dest"
		return
	fi
	orig=$(find "$from" -maxdepth 1 -name "${pkg}_*.orig.tar.*" ! -name '*.asc' | head -n 1)
	deb=$(find "$from" -maxdepth 1 -name "${pkg}_$ver.debian.tar.*" | head -n 1)
	[ -n "$orig" ] && [ -n "$deb" ] || return 1
	mkdir -p "$dest"
	tar -xf "$orig" -C "$dest" --strip-components=1 && tar -xf "$deb" -C "$dest" || return 1
	[ -f "$dest/debian/patches/series" ] || return 0
	while read -r p _; do
		case $p in '' | '#'*) continue ;; esac
		patch -d "$dest" -p1 --forward --quiet <"$dest/debian/patches/$p" || return 1
	done <"$dest/debian/patches/series"
}
