package fp

// Canonical is FromMont by Redc: the canonical limbs of the value z stands
// for.
func (f *Field) Canonical(z *Element) [Limbs]uint64 {
	var r Element
	f.Redc(&r, &[5]uint64{z[0], z[1], z[2], z[3], 0})
	return r
}
