package compare

import "math"

// TTest is the two-sided paired t-test p-value of "the mean of d is 0", a
// secondary reference next to the randomization test (which stays the
// primary one: it assumes nothing about the distribution of d). With
// n = len(d) ≥ 2, mean m and sample standard deviation s (n − 1 in the
// denominator), t = m / (s / √n) and p = I_{ν/(ν+t²)}(ν/2, ½) with ν = n − 1,
// the regularized incomplete beta function (scipy.stats.ttest_rel). When
// s = 0, p is 1 if m = 0 and 0 otherwise. ok is false for n < 2.
func TTest(d []float64) (p float64, ok bool) {
	n := len(d)
	if n < 2 {
		return 0, false
	}
	m := mean(d)
	var ss float64
	for _, v := range d {
		ss += (v - m) * (v - m)
	}
	sd := math.Sqrt(ss / float64(n-1))
	if sd == 0 {
		if m == 0 {
			return 1, true
		}
		return 0, true
	}
	t := m / (sd / math.Sqrt(float64(n)))
	nu := float64(n - 1)
	return regIncBeta(nu/2, 0.5, nu/(nu+t*t)), true
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (betacf, modified Lentz), to a
// relative precision of about 1e-14.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10_000; m++ {
		fm := float64(m)
		h *= lentz(fm*(b-fm)*x/((qam+2*fm)*(a+2*fm)), &c, &d)
		del := lentz(-(a+fm)*(qab+fm)*x/((a+2*fm)*(qap+2*fm)), &c, &d)
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}

// tiny stands in for a zero denominator in the continued fraction.
const tiny = 1e-300

// lentz is one step of the modified Lentz method with the coefficient aa:
// it updates c and d and returns the factor c·d of the fraction's value.
func lentz(aa float64, c, d *float64) float64 {
	*d = 1 + aa**d
	if math.Abs(*d) < tiny {
		*d = tiny
	}
	*c = 1 + aa / *c
	if math.Abs(*c) < tiny {
		*c = tiny
	}
	*d = 1 / *d
	return *d * *c
}
