;; The byte scanners of the skeleton loader (src/io/scan/skeleton.ts), in WebAssembly: V8 compiles them before their
;; first call (no interpreter and no tier-up through a one-shot run, where a JS scanner spent most of a 10 MB load
;; warming up), and strings are read 16 bytes at a time with SIMD.
;; Rebuild src/io/scan/wasm.ts from this file with `npm run build:wasm`.
;;
;; Memory: [0, 32000) records of `line` (5 i32 each), [32000, 32768) the nested key's name, [32768, 49152) the kind
;; of the container open at each depth, [49152, 131072) the record each open container is the value of, and from
;; 131072 (DATA) the bytes scanned, copied there by the caller.
;;
;; scan(q, end): memory[q, end) holds a JSON string's content from just after its opening quote to the end of the
;; line. Finds the closing quote, checking the content exactly as JSON.parse does: no raw byte below 0x20, only the
;; escapes \" \\ \/ \b \f \n \r \t and \u followed by four hex digits. Returns the closing quote's index when the
;; string held no backslash, -2 - index when it did, and -1 when the string is invalid or never closes.
;;
;; line(p, end, prefix, nameLen): validates the JSON value at memory[p, end) exactly as JSON.parse does (white
;; space, numbers, literals, strings as scan, any nesting up to 16,383 deep) and records, in file order, each key of
;; the top-level object and each key of the objects that are values of a top-level key named as the nameLen bytes
;; at 32000: key start and end (end as -1 - end when the key holds an escape), value start and end, and the record
;; of the top-level key it is inside (-1 at the top). Returns the number of records; -1 when the value is not an
;; object, too deep or has too many keys to record (the caller then parses the line whole); -2 when it is not
;; valid JSON. `prefix`: the object may be followed by anything; the global `after` is then the first byte after
;; it that is not white space.
(module
  (memory (export "memory") 3)
  ;; Escapes: \u needs four hex digits; the single-character ones are " \ / b f n r t (a bit set over c & 63).
  (func $scan (export "scan") (param $q i32) (param $end i32) (result i32)
    (local $esc i32) (local $bits i32) (local $c i32) (local $v v128) (local $p i32) (local $pos i32) (local $next i32)
    ;; Whole blocks of 16 bytes at p: handle every flagged byte of the block from its bit mask; $next is the first
    ;; byte not yet consumed (an escape may reach past the block: flags before $next are skipped).
    (local.set $next (local.get $q))
    (block $tail
      (loop $blocks
        (local.set $p (local.get $next))
        (br_if $tail (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load align=1 (local.get $p)))
        (local.set $bits
          (i8x16.bitmask
            (v128.or
              (v128.or
                (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22)))
                (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))
              (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20))))))
        (loop $flags
          (if (i32.eqz (local.get $bits))
            (then
              (if (i32.lt_u (local.get $next) (i32.add (local.get $p) (i32.const 16)))
                (then (local.set $next (i32.add (local.get $p) (i32.const 16)))))
              (br $blocks)))
          (local.set $pos (i32.add (local.get $p) (i32.ctz (local.get $bits))))
          (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
          (br_if $flags (i32.lt_u (local.get $pos) (local.get $next)))
          (local.set $c (i32.load8_u (local.get $pos)))
          (if (i32.eq (local.get $c) (i32.const 0x22))
            (then
              (if (local.get $esc) (then (return (i32.sub (i32.const -2) (local.get $pos)))))
              (return (local.get $pos))))
          (if (i32.ne (local.get $c) (i32.const 0x5c)) (then (return (i32.const -1))))
          (local.set $esc (i32.const 1))
          (if (i32.ge_u (i32.add (local.get $pos) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
          (local.set $c (i32.load8_u offset=1 (local.get $pos)))
          (if (i32.eq (local.get $c) (i32.const 0x75))
            (then
              (if (i32.ge_u (i32.add (local.get $pos) (i32.const 5)) (local.get $end)) (then (return (i32.const -1))))
              (if (i32.eqz
                    (i32.and
                      (i32.and (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=2 (local.get $pos)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=2 (local.get $pos)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))) (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=3 (local.get $pos)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=3 (local.get $pos)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))
                      (i32.and (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=4 (local.get $pos)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=4 (local.get $pos)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))) (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=5 (local.get $pos)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=5 (local.get $pos)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))))
                (then (return (i32.const -1))))
              (local.set $next (i32.add (local.get $pos) (i32.const 6)))
              (br $flags)))
          (if (i32.and (i32.lt_u (local.get $c) (i32.const 0x80)) (i32.wrap_i64 (i64.and (i64.shr_u (select (i64.const 0x14404410000000) (i64.const 0x800400000000) (i32.ge_u (local.get $c) (i32.const 0x40))) (i64.extend_i32_u (local.get $c))) (i64.const 1))))
            (then
              (local.set $next (i32.add (local.get $pos) (i32.const 2)))
              (br $flags)))
          (return (i32.const -1)))))
    ;; Fewer than 16 bytes left: the same checks a byte at a time.
    (local.set $q (local.get $next))
    (loop $outer
      ;; Whole blocks: skip the bytes before the first quote, backslash or control byte.
      (block $found
        (loop $blocks
          (br_if $found (i32.gt_u (i32.add (local.get $q) (i32.const 16)) (local.get $end)))
          (local.set $v (v128.load align=1 (local.get $q)))
          (local.set $bits
            (i8x16.bitmask
              (v128.or
                (v128.or
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22)))
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))
                (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20))))))
          (if (local.get $bits)
            (then
              (local.set $q (i32.add (local.get $q) (i32.ctz (local.get $bits))))
              (br $found)))
          (local.set $q (i32.add (local.get $q) (i32.const 16)))
          (br $blocks)))
      ;; One byte (the flagged one, or a tail byte when fewer than 16 are left).
      (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $q)))
      (if (i32.eq (local.get $c) (i32.const 0x22))
        (then
          (if (local.get $esc) (then (return (i32.sub (i32.const -2) (local.get $q)))))
          (return (local.get $q))))
      (if (i32.eq (local.get $c) (i32.const 0x5c))
        (then
          (local.set $esc (i32.const 1))
          (if (i32.ge_u (i32.add (local.get $q) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
          (local.set $c (i32.load8_u offset=1 (local.get $q)))
          (if (i32.eq (local.get $c) (i32.const 0x75))
            (then
              (if (i32.ge_u (i32.add (local.get $q) (i32.const 5)) (local.get $end)) (then (return (i32.const -1))))
              (if (i32.eqz
                    (i32.and
                      (i32.and (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=2 (local.get $q)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=2 (local.get $q)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))) (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=3 (local.get $q)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=3 (local.get $q)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))
                      (i32.and (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=4 (local.get $q)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=4 (local.get $q)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))) (i32.or (i32.lt_u (i32.sub (i32.load8_u offset=5 (local.get $q)) (i32.const 0x30)) (i32.const 10)) (i32.lt_u (i32.sub (i32.or (i32.load8_u offset=5 (local.get $q)) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))))
                (then (return (i32.const -1))))
              (local.set $q (i32.add (local.get $q) (i32.const 6)))
              (br $outer)))
          (if (i32.and (i32.lt_u (local.get $c) (i32.const 0x80)) (i32.wrap_i64 (i64.and (i64.shr_u (select (i64.const 0x14404410000000) (i64.const 0x800400000000) (i32.ge_u (local.get $c) (i32.const 0x40))) (i64.extend_i32_u (local.get $c))) (i64.const 1))))
            (then
              (local.set $q (i32.add (local.get $q) (i32.const 2)))
              (br $outer)))
          (return (i32.const -1))))
      (if (i32.lt_u (local.get $c) (i32.const 0x20)) (then (return (i32.const -1))))
      (local.set $q (i32.add (local.get $q) (i32.const 1)))
      (br $outer))
    (i32.const -1))

  (global $after (export "after") (mut i32) (i32.const 0))
  ;; The record of the named top-level key whose object is open at depth 2, or -2.
  (global $named (mut i32) (i32.const -2))

  ;; The end of the digits from p.
  (func $digits (param $p i32) (param $end i32) (result i32)
    (block $out
      (loop $more
        (br_if $out (i32.ge_u (local.get $p) (local.get $end)))
        (br_if $out (i32.gt_u (i32.sub (i32.load8_u (local.get $p)) (i32.const 0x30)) (i32.const 9)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $more)))
    (local.get $p))

  ;; The end of the number at p (JSON's grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?), or -1.
  (func $number (param $p i32) (param $end i32) (result i32)
    (local $c i32) (local $d i32)
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2d))
      (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $p)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $p (i32.add (local.get $p) (i32.const 1))))
      (else
        (if (i32.gt_u (i32.sub (local.get $c) (i32.const 0x31)) (i32.const 8)) (then (return (i32.const -1))))
        (local.set $p (call $digits (i32.add (local.get $p) (i32.const 1)) (local.get $end)))))
    (if (i32.lt_u (local.get $p) (local.get $end))
      (then
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2e))
          (then
            (local.set $d (i32.add (local.get $p) (i32.const 1)))
            (local.set $p (call $digits (local.get $d) (local.get $end)))
            (if (i32.eq (local.get $p) (local.get $d)) (then (return (i32.const -1))))))))
    (if (i32.lt_u (local.get $p) (local.get $end))
      (then
        (if (i32.eq (i32.or (i32.load8_u (local.get $p)) (i32.const 0x20)) (i32.const 0x65))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (if (i32.lt_u (local.get $p) (local.get $end))
              (then
                (local.set $c (i32.load8_u (local.get $p)))
                (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
                  (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))))
            (local.set $d (local.get $p))
            (local.set $p (call $digits (local.get $d) (local.get $end)))
            (if (i32.eq (local.get $p) (local.get $d)) (then (return (i32.const -1))))))))
    (local.get $p))

  ;; The end of the literal true, false or null at p, or -1.
  (func $literal (param $p i32) (param $end i32) (result i32)
    (local $w i32)
    (if (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $end)) (then (return (i32.const -1))))
    (local.set $w (i32.load align=1 (local.get $p)))
    ;; "true" and "null" as little-endian words
    (if (i32.or (i32.eq (local.get $w) (i32.const 0x65757274)) (i32.eq (local.get $w) (i32.const 0x6c6c756e)))
      (then (return (i32.add (local.get $p) (i32.const 4)))))
    ;; "fals" then "e"
    (if (i32.and
          (i32.eq (local.get $w) (i32.const 0x736c6166))
          (i32.le_u (i32.add (local.get $p) (i32.const 5)) (local.get $end)))
      (then
        (if (i32.eq (i32.load8_u offset=4 (local.get $p)) (i32.const 0x65))
          (then (return (i32.add (local.get $p) (i32.const 5)))))))
    (i32.const -1))

  ;; The key at depth 1 between from and to (plain bytes) is the nested key's name.
  (func $isName (param $from i32) (param $to i32) (param $len i32) (result i32)
    (local $i i32)
    (if (i32.ne (i32.sub (local.get $to) (local.get $from)) (local.get $len)) (then (return (i32.const 0))))
    (block $out
      (loop $more
        (br_if $out (i32.ge_u (local.get $i) (local.get $len)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $from) (local.get $i))) (i32.load8_u offset=32000 (local.get $i)))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (i32.const 1))

  ;; A container closes at p: the record it is the value of (if any) ends after p.
  (func $close (param $depth i32) (param $p i32)
    (local $r i32)
    (local.set $r (i32.load offset=49152 (i32.shl (local.get $depth) (i32.const 2))))
    (if (i32.ge_s (local.get $r) (i32.const 0))
      (then (i32.store offset=12 (i32.mul (local.get $r) (i32.const 20)) (i32.add (local.get $p) (i32.const 1))))))

  (func (export "line") (param $p i32) (param $end i32) (param $prefix i32) (param $nameLen i32) (result i32)
    (local $c i32) (local $q i32) (local $close i32) (local $depth i32) (local $state i32) (local $n i32)
    (local $pend i32) (local $r i32) (local $kind i32) (local $parent i32)
    (global.set $named (i32.const -2))
    ;; states: 0 a value, 1 a value or "]", 2 a key or "}", 3 a key, 4 ":", 5 "," or a closer (or the end at depth 0)
    (local.set $pend (i32.const -1))
    (block $done
      (loop $main
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $p)))
        ;; white space: space, tab, LF, CR
        (if (i32.or
              (i32.eq (local.get $c) (i32.const 0x20))
              (i32.and (i32.lt_u (local.get $c) (i32.const 0x20)) (i32.and (i32.shr_u (i32.const 0x2600) (local.get $c)) (i32.const 1))))
          (then (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $main)))
        ;; ":"
        (if (i32.eq (local.get $state) (i32.const 4))
          (then
            (if (i32.ne (local.get $c) (i32.const 0x3a)) (then (return (i32.const -2))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (local.set $state (i32.const 0))
            (br $main)))
        ;; after a value
        (if (i32.eq (local.get $state) (i32.const 5))
          (then
            (if (i32.eqz (local.get $depth))
              (then
                (if (local.get $prefix) (then (global.set $after (local.get $p)) (return (local.get $n))))
                (return (i32.const -2))))
            (local.set $kind (i32.load8_u offset=32768 (local.get $depth)))
            (if (i32.eq (local.get $c) (i32.const 0x2c))
              (then
                (local.set $state (select (i32.const 3) (i32.const 0) (i32.eq (local.get $kind) (i32.const 1))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $main)))
            (if (i32.or
                  (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (local.get $kind) (i32.const 1)))
                  (i32.and (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (local.get $kind) (i32.const 2))))
              (then
                (call $close (local.get $depth) (local.get $p))
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $main)))
            (return (i32.const -2))))
        ;; a key (or "}" right after "{")
        (if (i32.ge_u (local.get $state) (i32.const 2))
          (then
            (if (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (local.get $state) (i32.const 2)))
              (then
                (call $close (local.get $depth) (local.get $p))
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (local.set $state (i32.const 5))
                (br $main)))
            (if (i32.ne (local.get $c) (i32.const 0x22)) (then (return (i32.const -2))))
            (local.set $q (call $scan (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
            (if (i32.eq (local.get $q) (i32.const -1)) (then (return (i32.const -2))))
            (local.set $close (select (i32.sub (i32.const -2) (local.get $q)) (local.get $q) (i32.lt_s (local.get $q) (i32.const -1))))
            (local.set $pend (i32.const -1))
            ;; Recorded: every key at depth 1; at depth 2, the keys of a value of a named top-level key.
            (local.set $parent (i32.const -2))
            (if (i32.eq (local.get $depth) (i32.const 1))
              (then (local.set $parent (i32.const -1)))
              (else
                (if (i32.eq (local.get $depth) (i32.const 2))
                  (then (local.set $parent (global.get $named))))))
            (if (i32.ge_s (local.get $parent) (i32.const -1))
              (then
                (if (i32.ge_u (local.get $n) (i32.const 1600)) (then (return (i32.const -1))))
                (local.set $r (i32.mul (local.get $n) (i32.const 20)))
                (i32.store (local.get $r) (i32.add (local.get $p) (i32.const 1)))
                (i32.store offset=4 (local.get $r)
                  (select (i32.sub (i32.const -1) (local.get $close)) (local.get $close) (i32.lt_s (local.get $q) (i32.const -1))))
                (i32.store offset=8 (local.get $r) (i32.const -1))
                (i32.store offset=12 (local.get $r) (i32.const -1))
                (i32.store offset=16 (local.get $r) (local.get $parent))
                (local.set $pend (local.get $n))
                (local.set $n (i32.add (local.get $n) (i32.const 1)))))
            (local.set $p (i32.add (local.get $close) (i32.const 1)))
            (local.set $state (i32.const 4))
            (br $main)))
        ;; a value (or "]" right after "[")
        (if (i32.and (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (local.get $state) (i32.const 1)))
          (then
            (call $close (local.get $depth) (local.get $p))
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (local.set $state (i32.const 5))
            (br $main)))
        (if (i32.and (i32.eqz (local.get $depth)) (i32.ne (local.get $c) (i32.const 0x7b))) (then (return (i32.const -1))))
        ;; the record this value is the value of (the key just read), if it was recorded
        (local.set $r (local.get $pend))
        (local.set $pend (i32.const -1))
        (if (i32.ge_s (local.get $r) (i32.const 0))
          (then (i32.store offset=8 (i32.mul (local.get $r) (i32.const 20)) (local.get $p))))
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then
            (local.set $q (call $scan (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
            (if (i32.eq (local.get $q) (i32.const -1)) (then (return (i32.const -2))))
            (local.set $p
              (i32.add (select (i32.sub (i32.const -2) (local.get $q)) (local.get $q) (i32.lt_s (local.get $q) (i32.const -1))) (i32.const 1))))
          (else
            (if (i32.or (i32.eq (local.get $c) (i32.const 0x7b)) (i32.eq (local.get $c) (i32.const 0x5b)))
              (then
                (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
                (if (i32.ge_u (local.get $depth) (i32.const 16384)) (then (return (i32.const -1))))
                (i32.store8 offset=32768 (local.get $depth) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x7b))))
                (i32.store offset=49152 (i32.shl (local.get $depth) (i32.const 2)) (local.get $r))
                ;; A value of a top-level key opens at depth 2: when the key is the named one and the value an
                ;; object, the keys read inside it are recorded.
                (if (i32.eq (local.get $depth) (i32.const 2))
                  (then
                    (global.set $named (i32.const -2))
                    (if (i32.and (i32.ge_s (local.get $r) (i32.const 0)) (i32.eq (local.get $c) (i32.const 0x7b)))
                      (then
                        (if (i32.ge_s (i32.load offset=4 (i32.mul (local.get $r) (i32.const 20))) (i32.const 0))
                          (then
                            (if (call $isName
                                  (i32.load (i32.mul (local.get $r) (i32.const 20)))
                                  (i32.load offset=4 (i32.mul (local.get $r) (i32.const 20)))
                                  (local.get $nameLen))
                              (then (global.set $named (local.get $r))))))))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (local.set $state (select (i32.const 2) (i32.const 1) (i32.eq (local.get $c) (i32.const 0x7b))))
                (br $main)))
            (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))
              (then (local.set $q (call $number (local.get $p) (local.get $end))))
              (else (local.set $q (call $literal (local.get $p) (local.get $end)))))
            (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -2))))
            (local.set $p (local.get $q))))
        (if (i32.ge_s (local.get $r) (i32.const 0))
          (then (i32.store offset=12 (i32.mul (local.get $r) (i32.const 20)) (local.get $p))))
        (local.set $state (i32.const 5))
        (br $main)))
    (if (i32.or (local.get $depth) (i32.ne (local.get $state) (i32.const 5))) (then (return (i32.const -2))))
    (global.set $after (local.get $p))
    (local.get $n))

  ;; form(p, end): whether the valid JSON value at memory[p, end) is in JSON.stringify's form as far as its structure
  ;; goes (src/io/scan/form.ts has the rules; escapes are checked there): no white space, no key starting with a digit,
  ;; no repeated key in an object, numbers as JSON.stringify prints them. 1 yes, 0 no (also for an object of more than
  ;; 64 keys, more than 512 keys open at once, or nesting deeper than 256: left to the slow way). Returns -1 for no,
  ;; else the number n of numbers listed at 0 (start and end each): yes if each of them prints as written (the
  ;; caller checks those few in JS; n = 0: yes). Escapes are JSON.stringify's: \" \\ \b \f \n \r \t, \u00xx
  ;; (lowercase) for the other control characters.
  (global $nums (export "nums") (mut i32) (i32.const 0))

  ;; The end of the number at p when it is as JSON.stringify prints it, listed for the caller when that is not sure
  ;; here; -1 when it is not a number.
  (func $formNumber (param $p i32) (param $end i32) (result i32)
    (local $start i32) (local $neg i32) (local $first i32) (local $intEnd i32) (local $plain i32) (local $dot i32)
    (local $c i32) (local $lead i32) (local $sig i32) (local $d i32)
    (local.set $start (local.get $p))
    (local.set $plain (i32.const 1))
    (local.set $dot (i32.const -1))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2d))
      (then (local.set $neg (i32.const 1)) (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
    (local.set $first (i32.load8_u (local.get $p)))
    (if (i32.gt_u (i32.sub (local.get $first) (i32.const 0x30)) (i32.const 9)) (then (return (i32.const -1))))
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (if (i32.ne (local.get $first) (i32.const 0x30)) (then (local.set $p (call $digits (local.get $p) (local.get $end)))))
    (local.set $intEnd (local.get $p))
    (if (i32.lt_u (local.get $p) (local.get $end))
      (then
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 0x2e))
          (then
            (local.set $plain (i32.const 0))
            (local.set $dot (local.get $p))
            (local.set $d (i32.add (local.get $p) (i32.const 1)))
            (local.set $p (call $digits (local.get $d) (local.get $end)))
            (if (i32.eq (local.get $p) (local.get $d)) (then (return (i32.const -1))))))))
    (if (i32.lt_u (local.get $p) (local.get $end))
      (then
        (if (i32.eq (i32.or (i32.load8_u (local.get $p)) (i32.const 0x20)) (i32.const 0x65))
          (then
            (local.set $dot (i32.const -1))
            (local.set $plain (i32.const 0))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (if (i32.lt_u (local.get $p) (local.get $end))
              (then
                (local.set $c (i32.load8_u (local.get $p)))
                (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
                  (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))))
            (local.set $d (local.get $p))
            (local.set $p (call $digits (local.get $d) (local.get $end)))
            (if (i32.eq (local.get $p) (local.get $d)) (then (return (i32.const -1))))))))
    ;; A decimal fraction of at most 15 significant digits, none of them trailing zeros, reads back as itself and
    ;; prints as written from 1e-6 up.
    (if (i32.and (i32.ge_s (local.get $dot) (i32.const 0)) (i32.ne (i32.load8_u (i32.sub (local.get $p) (i32.const 1))) (i32.const 0x30)))
      (then
        (if (i32.and (i32.eq (i32.sub (i32.sub (local.get $intEnd) (local.get $start)) (local.get $neg)) (i32.const 1))
                     (i32.eq (local.get $first) (i32.const 0x30)))
          (then
            (block $lz
              (loop $more
                (br_if $lz (i32.ne (i32.load8_u (i32.add (i32.add (local.get $dot) (i32.const 1)) (local.get $lead))) (i32.const 0x30)))
                (local.set $lead (i32.add (local.get $lead) (i32.const 1)))
                (br $more)))
            (local.set $sig (i32.sub (i32.sub (i32.sub (local.get $p) (local.get $dot)) (i32.const 1)) (local.get $lead))))
          (else (local.set $sig (i32.sub (i32.sub (i32.sub (local.get $p) (local.get $start)) (i32.const 1)) (local.get $neg)))))
        (if (i32.and (i32.le_s (local.get $sig) (i32.const 15)) (i32.le_s (local.get $lead) (i32.const 5)))
          (then (return (local.get $p))))))
    ;; Integers of up to 15 digits print as written (but -0); anything else the caller compares with its printing.
    (local.set $d (i32.sub (i32.sub (local.get $p) (local.get $start)) (local.get $neg)))
    (if (i32.and (local.get $plain)
          (i32.and (i32.le_s (local.get $d) (i32.const 15))
            (i32.eqz (i32.and (i32.and (i32.eq (local.get $d) (i32.const 1)) (i32.eq (local.get $first) (i32.const 0x30))) (local.get $neg)))))
      (then (return (local.get $p))))
    (if (i32.ge_u (global.get $nums) (i32.const 4000)) (then (return (i32.const -1))))
    (i32.store (i32.shl (global.get $nums) (i32.const 3)) (local.get $start))
    (i32.store offset=4 (i32.shl (global.get $nums) (i32.const 3)) (local.get $p))
    (global.set $nums (i32.add (global.get $nums) (i32.const 1)))
    (local.get $p))


  ;; The escapes of the string content memory[p, end) (a valid JSON string's) are those JSON.stringify writes: \" \\
  ;; \b \f \n \r \t, and \u00xx in lowercase hex for the other control characters.
  (func $formEscapes (param $p i32) (param $end i32) (result i32)
    (local $c i32) (local $h i32) (local $l i32) (local $code i32)
    (block $out
      (loop $more
        (br_if $out (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x5c))
          (then (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $more)))
        (local.set $c (i32.load8_u offset=1 (local.get $p)))
        (if (i32.eq (local.get $c) (i32.const 0x75))
          (then
            (if (i32.or (i32.ne (i32.load8_u offset=2 (local.get $p)) (i32.const 0x30))
                        (i32.ne (i32.load8_u offset=3 (local.get $p)) (i32.const 0x30)))
              (then (return (i32.const 0))))
            (local.set $h (i32.sub (i32.load8_u offset=4 (local.get $p)) (i32.const 0x30)))
            (if (i32.gt_u (local.get $h) (i32.const 1)) (then (return (i32.const 0))))
            (local.set $l (i32.load8_u offset=5 (local.get $p)))
            (if (i32.lt_u (i32.sub (local.get $l) (i32.const 0x30)) (i32.const 10))
              (then (local.set $l (i32.sub (local.get $l) (i32.const 0x30))))
              (else
                (if (i32.lt_u (i32.sub (local.get $l) (i32.const 0x61)) (i32.const 6))
                  (then (local.set $l (i32.sub (local.get $l) (i32.const 0x57))))
                  (else (return (i32.const 0))))))
            (local.set $code (i32.add (i32.shl (local.get $h) (i32.const 4)) (local.get $l)))
            ;; \b \t \n \f \r have short escapes
            (if (i32.and (i32.shr_u (i32.const 0x3700) (local.get $code)) (i32.lt_u (local.get $code) (i32.const 14)))
              (then (return (i32.const 0))))
            (local.set $p (i32.add (local.get $p) (i32.const 6)))
            (br $more)))
        ;; " \ b f n r t, not /
        (if (i32.or
              (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x22)) (i32.eq (local.get $c) (i32.const 0x5c)))
                      (i32.or (i32.eq (local.get $c) (i32.const 0x62)) (i32.eq (local.get $c) (i32.const 0x66))))
              (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x6e)) (i32.eq (local.get $c) (i32.const 0x72)))
                      (i32.eq (local.get $c) (i32.const 0x74))))
          (then (local.set $p (i32.add (local.get $p) (i32.const 2))) (br $more)))
        (return (i32.const 0))))
    (i32.const 1))
  (func (export "form") (param $p i32) (param $end i32) (result i32)
    (local $c i32) (local $q i32) (local $depth i32) (local $state i32) (local $keys i32) (local $base i32)
    (local $k i32) (local $len i32) (local $from i32) (local $i i32) (local $same i32) (local $obj i32)
    ;; states: 0 a value, 1 after a value, 2 a key. Frames: kind at 32768 + depth, key base at 49152 + 4 depth;
    ;; keys open: starts at 114688 + 4 k, ends at 118784 + 4 k.
    (global.set $nums (i32.const 0))
    (loop $main
      (if (i32.and (i32.eq (local.get $state) (i32.const 1)) (i32.eqz (local.get $depth)))
        (then
          (if (i32.ne (local.get $p) (local.get $end)) (then (return (i32.const -1))))
          (return (global.get $nums))))
      (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $p)))
      (if (i32.eqz (local.get $state))
        (then
          (if (i32.or (i32.eq (local.get $c) (i32.const 0x7b)) (i32.eq (local.get $c) (i32.const 0x5b)))
            (then
              (if (i32.eq (local.get $depth) (i32.const 256)) (then (return (i32.const -1))))
              (local.set $obj (i32.eq (local.get $c) (i32.const 0x7b)))
              (i32.store8 offset=32768 (local.get $depth) (local.get $obj))
              (i32.store offset=49152 (i32.shl (local.get $depth) (i32.const 2)) (local.get $keys))
              (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (if (i32.and (i32.lt_u (local.get $p) (local.get $end))
                    (i32.eq (i32.load8_u (local.get $p)) (i32.add (local.get $c) (i32.const 2))))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 1)))
                  (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                  (local.set $state (i32.const 1)))
                (else (local.set $state (select (i32.const 2) (i32.const 0) (local.get $obj)))))
              (br $main)))
          (if (i32.eq (local.get $c) (i32.const 0x22))
            (then
              (local.set $q (call $scan (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
              (if (i32.eq (local.get $q) (i32.const -1)) (then (return (i32.const -1))))
              (if (i32.lt_s (local.get $q) (i32.const -1))
                (then
                  (local.set $q (i32.sub (i32.const -2) (local.get $q)))
                  (if (i32.eqz (call $formEscapes (i32.add (local.get $p) (i32.const 1)) (local.get $q))) (then (return (i32.const -1))))))
              (local.set $p (i32.add (local.get $q) (i32.const 1)))
              (local.set $state (i32.const 1))
              (br $main)))
          (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))
            (then (local.set $q (call $formNumber (local.get $p) (local.get $end))))
            (else (local.set $q (call $literal (local.get $p) (local.get $end)))))
          (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
          (local.set $p (local.get $q))
          (local.set $state (i32.const 1))
          (br $main)))
      (if (i32.eq (local.get $state) (i32.const 1))
        (then
          (local.set $obj (i32.load8_u offset=32767 (local.get $depth)))
          (if (i32.eq (local.get $c) (i32.const 0x2c))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (local.set $state (select (i32.const 2) (i32.const 0) (local.get $obj)))
              (br $main)))
          (if (i32.eq (local.get $c) (select (i32.const 0x7d) (i32.const 0x5d) (local.get $obj)))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 1)))
              (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
              (if (local.get $obj)
                (then (local.set $keys (i32.load offset=49152 (i32.shl (local.get $depth) (i32.const 2))))))
              (br $main)))
          (return (i32.const -1))))
      ;; a key
      (if (i32.ne (local.get $c) (i32.const 0x22)) (then (return (i32.const -1))))
      (local.set $from (i32.add (local.get $p) (i32.const 1)))
      (local.set $q (call $scan (local.get $from) (local.get $end)))
      (if (i32.eq (local.get $q) (i32.const -1)) (then (return (i32.const -1))))
      (if (i32.lt_s (local.get $q) (i32.const -1))
        (then
          (local.set $q (i32.sub (i32.const -2) (local.get $q)))
          (if (i32.eqz (call $formEscapes (local.get $from) (local.get $q))) (then (return (i32.const -1))))))
      (local.set $p (i32.add (local.get $q) (i32.const 1)))
      (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
      (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 0x3a)) (then (return (i32.const -1))))
      ;; V8 writes array-index keys first: a key starting with a digit may move.
      (if (i32.lt_u (i32.sub (i32.load8_u (local.get $from)) (i32.const 0x30)) (i32.const 10)) (then (return (i32.const -1))))
      (local.set $base (i32.load offset=49148 (i32.shl (local.get $depth) (i32.const 2))))
      (if (i32.or (i32.ge_u (i32.sub (local.get $keys) (local.get $base)) (i32.const 64)) (i32.ge_u (local.get $keys) (i32.const 512)))
        (then (return (i32.const -1))))
      (local.set $len (i32.sub (local.get $q) (local.get $from)))
      (local.set $k (local.get $base))
      (block $unique
        (loop $each
          (br_if $unique (i32.ge_u (local.get $k) (local.get $keys)))
          (if (i32.eq (i32.sub (i32.load offset=118784 (i32.shl (local.get $k) (i32.const 2)))
                               (i32.load offset=114688 (i32.shl (local.get $k) (i32.const 2))))
                      (local.get $len))
            (then
              (local.set $same (i32.const 1))
              (local.set $i (i32.const 0))
              (block $differ
                (loop $byte
                  (br_if $differ (i32.ge_u (local.get $i) (local.get $len)))
                  (if (i32.ne (i32.load8_u (i32.add (i32.load offset=114688 (i32.shl (local.get $k) (i32.const 2))) (local.get $i)))
                              (i32.load8_u (i32.add (local.get $from) (local.get $i))))
                    (then (local.set $same (i32.const 0)) (br $differ)))
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (br $byte)))
              (if (local.get $same) (then (return (i32.const -1))))))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $each)))
      (i32.store offset=114688 (i32.shl (local.get $keys) (i32.const 2)) (local.get $from))
      (i32.store offset=118784 (i32.shl (local.get $keys) (i32.const 2)) (local.get $q))
      (local.set $keys (i32.add (local.get $keys) (i32.const 1)))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (local.set $state (i32.const 0))
      (br $main))
    (i32.const -1))
)
