;; The byte scanners of the skeleton loader (src/io/scan/skeleton.ts), in WebAssembly: V8 compiles them before their
;; first call (no interpreter and no tier-up through a one-shot run, where a JS scanner spent most of a 10 MB load
;; warming up), and strings are read 16 bytes at a time with SIMD.
;; Rebuild src/io/scan/wasm.ts from this file with `npm run build:wasm`.
;;
;; Memory: [0, 16000) the numbers `form` leaves to the caller, [16000, 32000) the key tables of `line` (written by the
;; caller), [32000, 32256) and [32256, 32512) the value spans `line` found (start and end of each slot's value),
;; [32768, 49152) the kind of the container open at each depth, [49152, 114688) the slot each open container is the
;; value of, [114688, 122880) the keys `form` holds, and from 131072 (DATA) the bytes scanned, copied there by the
;; caller.
;;
;; scan(q, end): memory[q, end) holds a JSON string's content from just after its opening quote to the end of the
;; line. Finds the closing quote, checking the content exactly as JSON.parse does: no raw byte below 0x20, only the
;; escapes \" \\ \/ \b \f \n \r \t and \u followed by four hex digits. Returns the closing quote's index when the
;; string held no backslash, -2 - index when it did, and -1 when the string is invalid or never closes.
;;
;; line(p, end, prefix, t): validates the JSON value at memory[p, end) exactly as JSON.parse does (white space,
;; numbers, literals, strings as scan, any nesting up to 16,383 deep) and finds the values of the keys in the key
;; table at t: the keys of the top-level object, and those of the object that is the value of the table's nested
;; key, with JSON.parse's rule for repeated keys (the last wins; a later nested key's object replaces the keys read
;; in an earlier one). Each slot's span is [start, end) of the whole value (a string's with its quotes); -1: not
;; there. Returns 1, 0 when the value is not valid JSON, -1 when it is not an object, too deep, or a key that
;; matters is written with escapes (the caller then parses the line whole). `prefix`: the object may be followed by
;; anything; the global `after` is then the first byte after it that is not white space.
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

  ;; The slot of the key memory[from, to) in the key table at $t (its top keys, or with $nested its nested ones),
  ;; or -1. A table: top count, nested count, nested slot (255: none), first nested slot, end of the slots, first
  ;; slot; then each key as length, slot, bytes (the top keys, then the nested ones).
  (func $slotOf (param $t i32) (param $nested i32) (param $from i32) (param $to i32) (result i32)
    (local $n i32) (local $e i32) (local $len i32) (local $klen i32) (local $i i32)
    (local.set $len (i32.sub (local.get $to) (local.get $from)))
    (local.set $e (i32.add (local.get $t) (i32.const 6)))
    (local.set $n (i32.load8_u (local.get $t)))
    ;; past the top keys to the nested ones
    (if (local.get $nested)
      (then
        (block $skipped
          (loop $skip
            (br_if $skipped (i32.eqz (local.get $n)))
            (local.set $e (i32.add (local.get $e) (i32.add (i32.load8_u (local.get $e)) (i32.const 2))))
            (local.set $n (i32.sub (local.get $n) (i32.const 1)))
            (br $skip)))
        (local.set $n (i32.load8_u offset=1 (local.get $t)))))
    (block $none
      (loop $each
        (br_if $none (i32.eqz (local.get $n)))
        (local.set $klen (i32.load8_u (local.get $e)))
        (if (i32.eq (local.get $klen) (local.get $len))
          (then
            (local.set $i (i32.const 0))
            (block $differ
              (loop $byte
                (if (i32.ge_u (local.get $i) (local.get $len))
                  (then (return (i32.load8_u offset=1 (local.get $e)))))
                (br_if $differ (i32.ne (i32.load8_u offset=2 (i32.add (local.get $e) (local.get $i)))
                                       (i32.load8_u (i32.add (local.get $from) (local.get $i)))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br $byte)))))
        (local.set $e (i32.add (local.get $e) (i32.add (local.get $klen) (i32.const 2))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $each)))
    (i32.const -1))

  ;; Slots from..to (exclusive) have no value: -1 in both span arrays.
  (func $clearSpans (param $from i32) (param $to i32)
    (block $out
      (loop $more
        (br_if $out (i32.ge_u (local.get $from) (local.get $to)))
        (i32.store offset=32000 (i32.shl (local.get $from) (i32.const 2)) (i32.const -1))
        (i32.store offset=32256 (i32.shl (local.get $from) (i32.const 2)) (i32.const -1))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $more))))

  ;; A container closes at p: the slot it is the value of (if any) ends after p.
  (func $close (param $depth i32) (param $p i32)
    (local $s i32)
    (local.set $s (i32.load offset=49152 (i32.shl (local.get $depth) (i32.const 2))))
    (if (i32.ge_s (local.get $s) (i32.const 0))
      (then (i32.store offset=32256 (i32.shl (local.get $s) (i32.const 2)) (i32.add (local.get $p) (i32.const 1))))))

  (func (export "line") (param $p i32) (param $end i32) (param $prefix i32) (param $t i32) (result i32)
    (local $c i32) (local $q i32) (local $close i32) (local $depth i32) (local $state i32) (local $unsure i32)
    (local $pend i32) (local $s i32) (local $kind i32) (local $named i32) (local $nestedSlot i32)
    ;; states: 0 a value, 1 a value or "]", 2 a key or "}", 3 a key, 4 ":", 5 "," or a closer (or the end at depth 0)
    (local.set $pend (i32.const -1))
    (local.set $nestedSlot (i32.load8_u offset=2 (local.get $t)))
    (call $clearSpans (i32.load8_u offset=5 (local.get $t)) (i32.load8_u offset=4 (local.get $t)))
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
            (if (i32.ne (local.get $c) (i32.const 0x3a)) (then (return (i32.const 0))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (local.set $state (i32.const 0))
            (br $main)))
        ;; after a value
        (if (i32.eq (local.get $state) (i32.const 5))
          (then
            (if (i32.eqz (local.get $depth))
              (then
                (if (local.get $prefix)
                  (then (global.set $after (local.get $p)) (return (select (i32.const -1) (i32.const 1) (local.get $unsure)))))
                (return (i32.const 0))))
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
                (if (i32.eq (local.get $depth) (i32.const 2)) (then (local.set $named (i32.const 0))))
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $main)))
            (return (i32.const 0))))
        ;; a key (or "}" right after "{")
        (if (i32.ge_u (local.get $state) (i32.const 2))
          (then
            (if (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (local.get $state) (i32.const 2)))
              (then
                (call $close (local.get $depth) (local.get $p))
                (if (i32.eq (local.get $depth) (i32.const 2)) (then (local.set $named (i32.const 0))))
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (local.set $state (i32.const 5))
                (br $main)))
            (if (i32.ne (local.get $c) (i32.const 0x22)) (then (return (i32.const 0))))
            (local.set $q (call $scan (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
            (if (i32.eq (local.get $q) (i32.const -1)) (then (return (i32.const 0))))
            (local.set $close (select (i32.sub (i32.const -2) (local.get $q)) (local.get $q) (i32.lt_s (local.get $q) (i32.const -1))))
            (local.set $pend (i32.const -1))
            ;; The keys that matter: at depth 1, and at depth 2 inside the named key's object. One written with an
            ;; escape would need decoding to tell which key it is: unsure.
            (if (i32.or (i32.eq (local.get $depth) (i32.const 1)) (i32.and (i32.eq (local.get $depth) (i32.const 2)) (local.get $named)))
              (then
                (if (i32.lt_s (local.get $q) (i32.const -1))
                  (then (local.set $unsure (i32.const 1)))
                  (else
                    (local.set $pend
                      (call $slotOf (local.get $t) (i32.eq (local.get $depth) (i32.const 2)) (i32.add (local.get $p) (i32.const 1)) (local.get $close)))
                    ;; A later named key's object replaces an earlier one, and with it the keys read there.
                    (if (i32.and (i32.eq (local.get $depth) (i32.const 1)) (i32.eq (local.get $pend) (local.get $nestedSlot)))
                      (then (call $clearSpans (i32.load8_u offset=3 (local.get $t)) (i32.load8_u offset=4 (local.get $t)))))))))
            (local.set $p (i32.add (local.get $close) (i32.const 1)))
            (local.set $state (i32.const 4))
            (br $main)))
        ;; a value (or "]" right after "[")
        (if (i32.and (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (local.get $state) (i32.const 1)))
          (then
            (call $close (local.get $depth) (local.get $p))
            (if (i32.eq (local.get $depth) (i32.const 2)) (then (local.set $named (i32.const 0))))
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (local.set $state (i32.const 5))
            (br $main)))
        ;; The line must hold an object; anything else (valid or not) the ordinary path reports.
        (if (i32.and (i32.eqz (local.get $depth)) (i32.ne (local.get $c) (i32.const 0x7b))) (then (return (i32.const -1))))
        ;; the slot this value fills (the key just read), if any
        (local.set $s (local.get $pend))
        (local.set $pend (i32.const -1))
        (if (i32.ge_s (local.get $s) (i32.const 0))
          (then (i32.store offset=32000 (i32.shl (local.get $s) (i32.const 2)) (local.get $p))))
        (if (i32.eq (local.get $c) (i32.const 0x22))
          (then
            (local.set $q (call $scan (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
            (if (i32.eq (local.get $q) (i32.const -1)) (then (return (i32.const 0))))
            (local.set $p
              (i32.add (select (i32.sub (i32.const -2) (local.get $q)) (local.get $q) (i32.lt_s (local.get $q) (i32.const -1))) (i32.const 1))))
          (else
            (if (i32.or (i32.eq (local.get $c) (i32.const 0x7b)) (i32.eq (local.get $c) (i32.const 0x5b)))
              (then
                (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
                (if (i32.ge_u (local.get $depth) (i32.const 16384)) (then (return (i32.const -1))))
                (i32.store8 offset=32768 (local.get $depth) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x7b))))
                (i32.store offset=49152 (i32.shl (local.get $depth) (i32.const 2)) (local.get $s))
                (if (i32.and (i32.eq (local.get $depth) (i32.const 2)) (i32.eq (local.get $c) (i32.const 0x7b)))
                  (then (local.set $named (i32.and (i32.ge_s (local.get $s) (i32.const 0)) (i32.eq (local.get $s) (local.get $nestedSlot))))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (local.set $state (select (i32.const 2) (i32.const 1) (i32.eq (local.get $c) (i32.const 0x7b))))
                (br $main)))
            (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))
              (then (local.set $q (call $number (local.get $p) (local.get $end))))
              (else (local.set $q (call $literal (local.get $p) (local.get $end)))))
            (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const 0))))
            (local.set $p (local.get $q))))
        (if (i32.ge_s (local.get $s) (i32.const 0))
          (then (i32.store offset=32256 (i32.shl (local.get $s) (i32.const 2)) (local.get $p))))
        (local.set $state (i32.const 5))
        (br $main)))
    (if (i32.or (local.get $depth) (i32.ne (local.get $state) (i32.const 5))) (then (return (i32.const 0))))
    (global.set $after (local.get $p))
    (select (i32.const -1) (i32.const 1) (local.get $unsure)))

  ;; form(p, end): whether the valid JSON value at memory[p, end) is in JSON.stringify's form as far as its structure
  ;; goes (src/io/scan/form.ts has the rules; escapes are checked there): no white space, no key starting with a digit,
  ;; no repeated key in an object, numbers as JSON.stringify prints them. 1 yes, 0 no (also for an object of more than
  ;; 64 keys, more than 512 keys open at once, or nesting deeper than 256: left to the slow way). Returns -1 for no,
  ;; else the number n of numbers listed at 0 (start and end each): yes if each of them prints as written (the
  ;; caller checks those few in JS; n = 0: yes). Escapes are JSON.stringify's: \" \\ \b \f \n \r \t, \u00xx
  ;; (lowercase) for the other control characters.
  (global $nums (mut i32) (i32.const 0))

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
    (if (i32.ge_u (global.get $nums) (i32.const 2000)) (then (return (i32.const -1))))
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
;; plain(p, end): 1 when memory[p, end) (JSON text in JSON.stringify's form: `form` said so) is valid UTF-8 and holds
;; nothing pisess's JSON output writes otherwise (render/sanitize.ts, TerminalFilter's "json" form): no DEL (7f), C1
;; control (c2 80-9f), U+061C (d8 9c), U+200E/F (e2 80 8e/8f), U+202A-E (e2 80 aa-ae), U+2066-9 (e2 81 a6-a9), and
;; no \u escape of a surrogate (\uD800-\uDFFF: JSON.stringify writes one only for a lone surrogate); else 0. Blocks
;; of 16 bytes below 7f without a backslash are passed at once.
  (func (export "plain") (param $p i32) (param $end i32) (result i32)
    (local $c i32) (local $c1 i32) (local $c2 i32) (local $h i32)
    (loop $more
      (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const 1))))
      (if (i32.le_u (i32.add (local.get $p) (i32.const 16)) (local.get $end))
        (then
          (if (i32.eqz
                (v128.any_true
                  (v128.or
                    (i8x16.gt_u (v128.load align=1 (local.get $p)) (i8x16.splat (i32.const 0x7e)))
                    (i8x16.eq (v128.load align=1 (local.get $p)) (i8x16.splat (i32.const 0x5c))))))
            (then (local.set $p (i32.add (local.get $p) (i32.const 16))) (br $more)))))
      (local.set $c (i32.load8_u (local.get $p)))
      (if (i32.lt_u (local.get $c) (i32.const 0x7f))
        (then
          (if (i32.ne (local.get $c) (i32.const 0x5c))
            (then (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $more)))
          ;; A backslash: its escape is whole (the text is valid JSON); \u with a surrogate's first two digits is out.
          (if (i32.ge_u (i32.add (local.get $p) (i32.const 1)) (local.get $end)) (then (return (i32.const 0))))
          (if (i32.ne (i32.load8_u offset=1 (local.get $p)) (i32.const 0x75))
            (then (local.set $p (i32.add (local.get $p) (i32.const 2))) (br $more)))
          (if (i32.gt_u (i32.add (local.get $p) (i32.const 6)) (local.get $end)) (then (return (i32.const 0))))
          (local.set $h (i32.or (i32.load8_u offset=3 (local.get $p)) (i32.const 0x20)))
          (if (i32.and
                (i32.eq (i32.or (i32.load8_u offset=2 (local.get $p)) (i32.const 0x20)) (i32.const 0x64))
                (i32.or
                  (i32.or (i32.eq (local.get $h) (i32.const 0x38)) (i32.eq (local.get $h) (i32.const 0x39)))
                  (i32.lt_u (i32.sub (local.get $h) (i32.const 0x61)) (i32.const 6))))
            (then (return (i32.const 0))))
          (local.set $p (i32.add (local.get $p) (i32.const 6)))
          (br $more)))
      (if (i32.eq (local.get $c) (i32.const 0x7f)) (then (return (i32.const 0))))
      ;; A sequence of 2 to 4 bytes, checked as UTF-8 (no overlong form, no surrogate, nothing past U+10FFFF).
      (if (i32.lt_u (local.get $c) (i32.const 0xc2)) (then (return (i32.const 0))))
      (if (i32.ge_u (i32.add (local.get $p) (i32.const 1)) (local.get $end)) (then (return (i32.const 0))))
      (local.set $c1 (i32.load8_u offset=1 (local.get $p)))
      (if (i32.lt_u (local.get $c) (i32.const 0xe0))
        (then
          (if (i32.ne (i32.and (local.get $c1) (i32.const 0xc0)) (i32.const 0x80)) (then (return (i32.const 0))))
          (if (i32.and (i32.eq (local.get $c) (i32.const 0xc2)) (i32.lt_u (local.get $c1) (i32.const 0xa0)))
            (then (return (i32.const 0))))
          (if (i32.and (i32.eq (local.get $c) (i32.const 0xd8)) (i32.eq (local.get $c1) (i32.const 0x9c)))
            (then (return (i32.const 0))))
          (local.set $p (i32.add (local.get $p) (i32.const 2)))
          (br $more)))
      (if (i32.ge_u (i32.add (local.get $p) (i32.const 2)) (local.get $end)) (then (return (i32.const 0))))
      (local.set $c2 (i32.load8_u offset=2 (local.get $p)))
      (if (i32.ne (i32.and (local.get $c2) (i32.const 0xc0)) (i32.const 0x80)) (then (return (i32.const 0))))
      (if (i32.lt_u (local.get $c) (i32.const 0xf0))
        (then
          ;; e0: a0-bf (not overlong); ed: 80-9f (no surrogate); else 80-bf.
          (if (i32.lt_u (local.get $c1)
                (select (i32.const 0xa0) (i32.const 0x80) (i32.eq (local.get $c) (i32.const 0xe0))))
            (then (return (i32.const 0))))
          (if (i32.gt_u (local.get $c1)
                (select (i32.const 0x9f) (i32.const 0xbf) (i32.eq (local.get $c) (i32.const 0xed))))
            (then (return (i32.const 0))))
          (if (i32.eq (local.get $c) (i32.const 0xe2))
            (then
              (if (i32.and (i32.eq (local.get $c1) (i32.const 0x80))
                    (i32.or
                      (i32.lt_u (i32.sub (local.get $c2) (i32.const 0x8e)) (i32.const 2))
                      (i32.lt_u (i32.sub (local.get $c2) (i32.const 0xaa)) (i32.const 5))))
                (then (return (i32.const 0))))
              (if (i32.and (i32.eq (local.get $c1) (i32.const 0x81))
                    (i32.lt_u (i32.sub (local.get $c2) (i32.const 0xa6)) (i32.const 4)))
                (then (return (i32.const 0))))))
          (local.set $p (i32.add (local.get $p) (i32.const 3)))
          (br $more)))
      (if (i32.gt_u (local.get $c) (i32.const 0xf4)) (then (return (i32.const 0))))
      ;; f0: 90-bf (not overlong); f4: 80-8f (up to U+10FFFF); else 80-bf.
      (if (i32.lt_u (local.get $c1)
            (select (i32.const 0x90) (i32.const 0x80) (i32.eq (local.get $c) (i32.const 0xf0))))
        (then (return (i32.const 0))))
      (if (i32.gt_u (local.get $c1)
            (select (i32.const 0x8f) (i32.const 0xbf) (i32.eq (local.get $c) (i32.const 0xf4))))
        (then (return (i32.const 0))))
      (if (i32.ge_u (i32.add (local.get $p) (i32.const 3)) (local.get $end)) (then (return (i32.const 0))))
      (if (i32.ne (i32.and (i32.load8_u offset=3 (local.get $p)) (i32.const 0xc0)) (i32.const 0x80))
        (then (return (i32.const 0))))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br $more))
    (i32.const 1))
)
