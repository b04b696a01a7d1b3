package par

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStepBounds: the steps cover the batch in order, none above most,
// none empty but a batch of 0's, and a large batch's first and last steps
// grow from ramp and shrink back to it.
func TestStepBounds(t *testing.T) {
	const ramp = 1 << 15
	for _, most := range []int{1 << 18, 1 << 16, 7, 1} {
		for _, count := range []int{0, 1, 6, 7, 8, ramp, 4*ramp - 1, 4 * ramp, 1 << 18, 1<<18 + 1, 3 << 20, 1 << 22} {
			if count/most > 1<<12 {
				continue // steps of a few items make a long list, with nothing new to see
			}
			b := StepBounds(count, ramp, most)
			require.Equal(t, 0, b[0])
			require.Equal(t, count, b[len(b)-1], "most %d, count %d", most, count)
			require.GreaterOrEqual(t, len(b), 2)
			for j := range len(b) - 1 {
				n := b[j+1] - b[j]
				require.LessOrEqual(t, n, most, "most %d, count %d", most, count)
				require.True(t, n > 0 || count == 0, "most %d, count %d: an empty step", most, count)
			}
			first, last := b[1]-b[0], b[len(b)-1]-b[len(b)-2]
			if ramp < most && count >= 4*ramp {
				require.Equal(t, ramp, first, "most %d, count %d", most, count)
				require.Equal(t, ramp, last, "most %d, count %d", most, count)
			} else {
				require.Len(t, b, 1+max(1, (count+most-1)/most), "most %d, count %d: no ramp", most, count)
			}
		}
	}
}

// TestStepBoundsShape: 2^22 items in steps of up to 2^18 are 2^15, 2^16,
// 2^17, fifteen equal middle steps, and back; in steps of up to 2^19 the
// ramp goes through 2^18.
func TestStepBoundsShape(t *testing.T) {
	sizes := func(b []int) []int {
		s := make([]int, len(b)-1)
		for j := range s {
			s[j] = b[j+1] - b[j]
		}
		return s
	}
	s := sizes(StepBounds(1<<22, 1<<15, 1<<18))
	require.Equal(t, []int{1 << 15, 1 << 16, 1 << 17}, s[:3])
	require.Equal(t, []int{1 << 17, 1 << 16, 1 << 15}, s[len(s)-3:])
	require.Len(t, s, 21)
	for _, n := range s[3:18] {
		require.InDelta(t, ((1<<22)-2*(7<<15))/15, n, 1)
	}
	s = sizes(StepBounds(1<<22, 1<<15, 1<<19))
	require.Equal(t, []int{1 << 15, 1 << 16, 1 << 17, 1 << 18}, s[:4])
	require.Equal(t, []int{1 << 18, 1 << 17, 1 << 16, 1 << 15}, s[len(s)-4:])
	for _, n := range s[4 : len(s)-4] {
		require.InDelta(t, ((1<<22)-2*(15<<15))/(len(s)-8), n, 1)
		require.LessOrEqual(t, n, 1<<19)
	}
	require.Equal(t, []int{0, 5}, StepBounds(5, 0, 8), "no ramp")
}
