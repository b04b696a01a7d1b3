package par

// StepBounds splits [0, count) into the steps of a pipeline, in order, and
// returns their bounds as Bounds does: step j is [b[j], b[j+1]). Steps hold
// at most most items each, equal in the middle. Where count allows, the
// first steps grow from ramp by doubling and the last ones shrink back to
// it, so that the host's work on the first step, before the device has
// any, and on the last one, after the device is done, is a small step's;
// at least as many items stay in the middle as in the ramp's last step.
// count = 0 gives one empty step, [0, 0].
func StepBounds(count, ramp, most int) []int {
	most = max(most, 1)
	var up []int
	rest := count
	for s := ramp; s > 0 && s < most && rest >= 4*s; s *= 2 {
		up = append(up, s)
		rest -= 2 * s
	}
	b := []int{0}
	add := func(n int) { b = append(b, b[len(b)-1]+n) }
	for _, s := range up {
		add(s)
	}
	middle := max(1, (rest+most-1)/most)
	for j := range middle {
		add(rest/middle + min(1, max(0, rest%middle-j))) // the first rest mod middle steps one larger
	}
	for j := len(up) - 1; j >= 0; j-- {
		add(up[j])
	}
	return b
}
