# Shared set-up steps for scripts/test and scripts/demo: Debian packages and the Python venvs of the test
# accessory and of Home Assistant. Sourced, not run.

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

# Installs the Debian packages given (services among them) without starting any service now: a policy-rc.d
# that refuses every start stands while they are installed, unless the system has its own (containers do).
# avahi-daemon started by its package would announce and browse on the machine's real network.
ensure_apt_packages_not_started() {
    local policy=/usr/sbin/policy-rc.d sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    if [ -e "$policy" ]; then
        ensure_apt_packages "$@"
        return
    fi
    printf '#!/bin/sh\n# scripts/lib/setup.sh: no service starts while test packages are installed\nexit 101\n' \
        | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    local status=0
    ensure_apt_packages "$@" || status=$?
    $sudo rm -f "$policy"
    return "$status"
}

# venv_is_current DIR REQUIREMENTS: whether DIR holds a venv installed from this very requirements file.
venv_is_current() {
    local dir="$1" req="$2"
    [ -x "$dir/bin/python" ] && [ -f "$dir/.requirements.sha256" ] \
        && [ "$(cat "$dir/.requirements.sha256")" = "$(sha256sum "$req" | cut -d' ' -f1)" ]
}

# ensure_venv DIR REQUIREMENTS [PIP_ARGS...]: creates a Python venv in DIR with the pinned requirements,
# once; re-installs when the requirements file changed. PIP_ARGS go to `pip install` as well (for example
# `-c constraints.txt`); they are not part of the key, so they must follow from the requirements file.
ensure_venv() {
    local dir="$1" req="$2"
    shift 2
    venv_is_current "$dir" "$req" && return 0
    echo "==> creating Python venv $dir from $req"
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install -q --disable-pip-version-check "$@" -r "$req"
    sha256sum "$req" | cut -d' ' -f1 > "$dir/.requirements.sha256"
}

# wheel_member REQUIREMENT MEMBER: prints the file MEMBER from inside the wheel of REQUIREMENT (for example
# homeassistant==2024.3.3 and homeassistant/package_constraints.txt), downloaded with a throwaway pip.
wheel_member() {
    local requirement="$1" member="$2" tmp
    tmp=$(mktemp -d)
    python3 -m venv "$tmp/venv"
    "$tmp/venv/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp/wheel" "$requirement"
    "$tmp/venv/bin/python" - "$tmp/wheel" "$member" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
sys.stdout.write(zipfile.ZipFile(wheel).read(sys.argv[2]).decode())
PY
    rm -rf "$tmp"
}

# homeassistant_venv_dir REQUIREMENTS: the folder of the Home Assistant venv made from REQUIREMENTS.
homeassistant_venv_dir() {
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/hap2mqtt/venv-ha-$(sha256sum "$1" | cut -c1-16)"
}

# ensure_homeassistant_venv LINK REQUIREMENTS: the Home Assistant venv (about 700 MB) lives in the user's
# cache, keyed by the requirements file, so a fresh clone on the same machine reuses it; LINK (.venv-ha)
# points at it. It is installed with Home Assistant's own constraints file (from its wheel), so indirect
# dependencies keep the versions it was released with.
ensure_homeassistant_venv() {
    local link="$1" req="$2" cache key dir
    cache="${XDG_CACHE_HOME:-$HOME/.cache}/hap2mqtt"
    dir=$(homeassistant_venv_dir "$req")
    key=${dir##*/venv-ha-}
    if ! venv_is_current "$dir" "$req"; then
        mkdir -p "$cache"
        local constraints
        constraints=$(mktemp)
        wheel_member "$(grep -E '^homeassistant==' "$req")" homeassistant/package_constraints.txt > "$constraints"
        ensure_venv "$dir" "$req" -c "$constraints"
        rm -f "$constraints"
        find "$cache" -maxdepth 1 -name 'venv-ha-*' ! -name "venv-ha-$key" -exec rm -rf {} +
    fi
    if [ "$(readlink "$link" 2>/dev/null)" != "$dir" ]; then
        rm -rf "$link"
        ln -s "$dir" "$link"
    fi
}
