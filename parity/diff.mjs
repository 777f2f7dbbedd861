// Deep comparison that reports the JSON path of the first difference.

/** Returns null when equal, else {path, expected, actual}. Key order is ignored; undefined keys count as absent. */
export function firstDiff(expected, actual, path = "$") {
	if (Object.is(expected, actual)) return null;
	const te = kind(expected);
	const ta = kind(actual);
	if (te !== ta) return { path, expected: preview(expected), actual: preview(actual) };
	if (te === "array") {
		const n = Math.min(expected.length, actual.length);
		for (let i = 0; i < n; i++) {
			const d = firstDiff(expected[i], actual[i], `${path}[${i}]`);
			if (d) return d;
		}
		if (expected.length !== actual.length) {
			return {
				path: `${path}.length`,
				expected: expected.length,
				actual: actual.length,
				extra: preview(expected.length > actual.length ? expected[n] : actual[n]),
			};
		}
		return null;
	}
	if (te === "object") {
		const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
		for (const k of [...keys].sort()) {
			const ev = expected[k];
			const av = actual[k];
			if (ev === undefined && av === undefined) continue;
			const d = firstDiff(ev, av, `${path}${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}`);
			if (d) return d;
		}
		return null;
	}
	// numbers: NaN handled by Object.is; everything else differs
	return { path, expected: preview(expected), actual: preview(actual) };
}

function kind(v) {
	if (v === null) return "null";
	if (Array.isArray(v)) return "array";
	return typeof v;
}

export function preview(v, max = 200) {
	if (v === undefined) return "<absent>";
	const s = JSON.stringify(v);
	return s.length > max ? `${s.slice(0, max)}…` : s;
}
