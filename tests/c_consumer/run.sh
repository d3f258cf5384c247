#!/usr/bin/env bash
# Installs warpkit from the build tree into a scratch prefix, then builds
# consumer.c against that prefix in strict C11, the ways a user would:
#   1. the C compiler by hand (-lwarpkit and libcudart);
#   2. pkg-config --cflags --libs warpkit (warpkit.pc), and --static with
#      libwarpkit.a;
#      With NCCL, dist_consumer.c through warpkit_nccl.pc too;
#   3. CMake: find_package(warpkit CONFIG) in a C-only project, with the
#      shared (warpkit::warpkit) and the static (warpkit::warpkit_static)
#      library;
# and runs each program. Without a GPU each one gets WK_ERROR_NO_DEVICE from
# wk_create and counts that as a pass: the link is what is tested here.
# Usage: run.sh BUILD_DIR CUDART_LIBRARY_FILE CUDA_INCLUDE_DIR...
# Environment: CC (default gcc), WK_CUDA_ROOT (the toolkit, for CMake's
# find_package(CUDAToolkit)), CMAKE_GENERATOR.
set -eu
build=$1 cudart=$2
shift 2
cuda_lib=$(dirname "$cudart")
includes=()
for dir in "$@"; do includes+=(-I "$dir"); done
here=$(cd "$(dirname "$0")" && pwd)
work=$build/consumer
prefix=$work/install
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
cc=${CC:-gcc}
strict=(-std=c11 -pedantic -Wall -Wextra -Werror)
passed=0 failed=0
run() { # run NAME PROGRAM: runs one consumer and counts it
    echo "-- $1"
    if "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1"; fi
}

# What the install put where.
for f in "$libdir/libwarpkit.so" "$libdir/libwarpkit.so.0" "$libdir/libwarpkit.a" \
    "$libdir/pkgconfig/warpkit.pc" "$libdir/cmake/warpkit/warpkitConfig.cmake" \
    "$libdir/cmake/warpkit/warpkitConfigVersion.cmake" "$libdir/cmake/warpkit/warpkitTargets.cmake"; do
    [ -e "$f" ] || { echo "FAIL: the install has no ${f#"$prefix"/}"; failed=$((failed + 1)); }
done
soname=$(objdump -p "$libdir/libwarpkit.so" | awk '$1 == "SONAME" { print $2 }')
echo "SONAME $soname; libwarpkit.so -> $(readlink "$libdir/libwarpkit.so") -> $(readlink "$libdir/libwarpkit.so.0")"
[ "$soname" = libwarpkit.so.0 ] || { echo "FAIL: SONAME '$soname', not libwarpkit.so.0"; failed=$((failed + 1)); }

# 1. By hand.
"$cc" "${strict[@]}" -I "$prefix/include" "${includes[@]}" "$here/consumer.c" \
    -L "$libdir" -lwarpkit "$cudart" -Wl,-rpath,"$libdir" -Wl,-rpath,"$cuda_lib" \
    -o "$work/consumer-cc"
run "by hand" "$work/consumer-cc"

# 2. pkg-config.
if ! command -v pkg-config >/dev/null; then
    echo "FAIL: pkg-config is not installed (scripts/build.sh installs it)"
    failed=$((failed + 1))
else
    export PKG_CONFIG_PATH="$libdir/pkgconfig"
    echo "pkg-config: warpkit $(pkg-config --modversion warpkit): $(pkg-config --cflags --libs warpkit)"
    # shellcheck disable=SC2046 # the flags are meant to split
    "$cc" "${strict[@]}" "$here/consumer.c" $(pkg-config --cflags --libs warpkit) \
        -Wl,-rpath,"$(pkg-config --variable=libdir warpkit)" \
        -Wl,-rpath,"$(pkg-config --variable=cuda_libdir warpkit)" -o "$work/consumer-pkg-config"
    run "pkg-config" "$work/consumer-pkg-config"
    # The static library, with what --static adds (Libs.private).
    # shellcheck disable=SC2046
    "$cc" "${strict[@]}" "$here/consumer.c" $(pkg-config --cflags warpkit) \
        $(pkg-config --static --libs warpkit | sed 's/-lwarpkit/-Wl,-Bstatic -lwarpkit -Wl,-Bdynamic/') \
        -Wl,-rpath,"$(pkg-config --variable=cuda_libdir warpkit)" -o "$work/consumer-pkg-config-static"
    run "pkg-config --static" "$work/consumer-pkg-config-static"
    # The distributed calls, where the build found NCCL (warpkit_nccl.pc).
    if [ -e "$libdir/pkgconfig/warpkit_nccl.pc" ]; then
        # shellcheck disable=SC2046
        "$cc" "${strict[@]}" "$here/dist_consumer.c" $(pkg-config --cflags --libs warpkit_nccl) \
            -Wl,-rpath,"$libdir" -Wl,-rpath,"$(pkg-config --variable=nccl_libdir warpkit_nccl)" \
            -Wl,-rpath,"$(pkg-config --variable=cuda_libdir warpkit)" -o "$work/dist-consumer-pkg-config"
        run "pkg-config, warpkit_nccl" "$work/dist-consumer-pkg-config"
    fi
fi

# 3. CMake, a C-only project: the shared and the static library.
cuda_root=()
[ -n "${WK_CUDA_ROOT:-}" ] && cuda_root=(-DCUDAToolkit_ROOT="$WK_CUDA_ROOT")
for target in warpkit::warpkit warpkit::warpkit_static; do
    dir=$work/cmake-${target#warpkit::}
    if cmake -S "$here" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
        -DWARPKIT_TARGET="$target" "${cuda_root[@]}" >"$dir.log" 2>&1 &&
        cmake --build "$dir" >>"$dir.log" 2>&1; then
        run "CMake, $target" "$dir/consumer"
    else
        tail -n 30 "$dir.log"
        echo "FAIL: CMake, $target: did not build"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
