# Shared set-up steps for scripts/test and scripts/demo: Debian packages and the Python venv of the test
# accessory. Sourced, not run.

# Installs the Debian packages given that are not installed yet (as root, or through sudo).
ensure_apt_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "==> installing Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# ensure_venv DIR REQUIREMENTS: creates a Python venv in DIR with the pinned requirements, once; re-installs
# when the requirements file changed.
ensure_venv() {
    local dir="$1" req="$2" stamp="$1/.requirements.sha256"
    local want
    want=$(sha256sum "$req" | cut -d' ' -f1)
    if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    echo "==> creating Python venv $dir from $req"
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install -q --disable-pip-version-check -r "$req"
    echo "$want" > "$stamp"
}
