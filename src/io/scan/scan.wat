;; String-content scanner for the skeleton loader (src/io/scan/skeleton.ts), 16 bytes at a time with SIMD.
;; Rebuild src/io/scan/wasm.ts from this file with `npm run build:wasm`.
;;
;; scan(q, end): memory[q, end) holds a JSON string's content from just after its opening quote to the end of the
;; line. Finds the closing quote, checking the content exactly as JSON.parse does: no raw byte below 0x20, only the
;; escapes \" \\ \/ \b \f \n \r \t and \u followed by four hex digits. Returns the closing quote's index when the
;; string held no backslash, -2 - index when it did, and -1 when the string is invalid or never closes.
(module
  (memory (export "memory") 1)
  ;; Escapes: \u needs four hex digits; the single-character ones are " \ / b f n r t (a bit set over c & 63).
  (func (export "scan") (param $q i32) (param $end i32) (result i32)
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
)
