package metrics

import (
	"math"
	"strconv"
)

// cSpace reports whether c is white space for C's isspace in the "C" locale,
// which is what trec_eval uses to split fields.
func cSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f')
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i]|0x20 != prefix[i] {
			return false
		}
	}
	return true
}

// atof converts s as C's atof, strtod in the "C" locale, does. The longest
// prefix of s that is a decimal or hexadecimal floating-point number, an
// infinity or a NaN is converted, correctly rounded like glibc. Anything
// else, the empty string included, is 0. Out-of-range values become ±Inf
// or the nearest subnormal, as with strtod.
func atof(s string) float64 {
	if f, ok := atofFast(s); ok {
		return f
	}
	i := 0
	for i < len(s) && cSpace(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "inf"):
		if neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case hasPrefixFold(rest, "nan"):
		// glibc keeps the sign of a NaN. Only ordering and printing could
		// see it, and neither distinguishes it here.
		return math.NaN()
	case len(rest) >= 2 && rest[0] == '0' && rest[1]|0x20 == 'x':
		return hexPrefix(s[start:], neg, rest)
	}
	// Decimal: digits [. digits] [e[sign]digits], at least one digit.
	j := 0
	digits := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
		digits++
	}
	if j < len(rest) && rest[j] == '.' {
		j++
		for j < len(rest) && isDigit(rest[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if j < len(rest) && rest[j]|0x20 == 'e' {
		k := j + 1
		if k < len(rest) && (rest[k] == '+' || rest[k] == '-') {
			k++
		}
		if k < len(rest) && isDigit(rest[k]) {
			for k < len(rest) && isDigit(rest[k]) {
				k++
			}
			j = k
		}
	}
	num := s[start : len(s)-len(rest)+j]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil && !isRangeErr(err) {
		return 0 // unreachable: num matches the grammar ParseFloat accepts
	}
	return f
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// atofFast converts the common plain decimals ("12.345", "-3") exactly as
// strconv would: at most 15 significant digits and 22 decimals make the
// digits and the power of ten exact doubles, so one division is correctly
// rounded (Clinger's fast path). It reports false for anything else.
func atofFast(s string) (float64, bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var m uint64
	digits, frac := 0, 0
	dot := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			if m == 0 && c == '0' && !dot {
				continue // leading zeros are not significant
			}
			m = m*10 + uint64(c-'0')
			if digits++; digits > 15 {
				return 0, false
			}
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if dot && m == 0 {
		// "0.000" counts fraction zeros after the leading zeros skip. Let
		// the general path handle zeros and odd forms like "." .
		return 0, false
	}
	if frac > 22 || (digits == 0 && !dot) {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// hexPrefix converts a C99 hexadecimal float prefix, such as "0x1.8p3",
// "0x1.8" or "0x.8". signed is the text from the optional sign on, and rest
// follows the sign.
func hexPrefix(signed string, neg bool, rest string) float64 {
	j := 2
	digits := 0
	for j < len(rest) && isHexDigit(rest[j]) {
		j++
		digits++
	}
	if j < len(rest) && rest[j] == '.' {
		j++
		for j < len(rest) && isHexDigit(rest[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		// "0x" without a hex digit: strtod converts only the "0".
		if neg {
			return math.Copysign(0, -1)
		}
		return 0
	}
	mant := rest[:j]
	exp := "p0"
	if j < len(rest) && rest[j]|0x20 == 'p' {
		k := j + 1
		if k < len(rest) && (rest[k] == '+' || rest[k] == '-') {
			k++
		}
		if k < len(rest) && isDigit(rest[k]) {
			for k < len(rest) && isDigit(rest[k]) {
				k++
			}
			exp = rest[j:k]
		}
	}
	sign := ""
	if len(signed) > len(rest) {
		sign = signed[:1]
	}
	f, err := strconv.ParseFloat(sign+mant+exp, 64)
	if err != nil && !isRangeErr(err) {
		return 0
	}
	return f
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// atol converts s as C's atol, strtol base 10, does: optional leading white
// space and sign, then decimal digits. No digits gives 0. Overflow clamps
// to the int64 range, as glibc does on LP64 systems.
func atol(s string) int64 {
	i := 0
	for i < len(s) && cSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var u uint64
	overflow := false
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
			continue
		}
		u = u*10 + d
	}
	if neg {
		if overflow || u > 1<<63 {
			return math.MinInt64
		}
		return -int64(u)
	}
	if overflow || u > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(u)
}
