package soa

import "fmt"

// PosesOf is a batch of rigid-body poses, one per body: the position
// (PX, PY, PZ) and the rotation as a unit quaternion (QX, QY, QZ, QW),
// w last. kernel.CapsulesFromPoses moves each body's capsule, given in
// the body's frame, to its pose.
type PosesOf[F Float] struct {
	PX, PY, PZ     []F
	QX, QY, QZ, QW []F
}

// Poses is the float32 input of kernel.CapsulesFromPoses.
type Poses = PosesOf[float32]

// Poses64 is the float64 input of kernel.CapsulesFromPoses64.
type Poses64 = PosesOf[float64]

// NewPoses returns n poses, all zero (the zero quaternion leaves a
// capsule unrotated; set QW to 1 for the identity rotation).
func NewPoses(n int) *Poses { return newPoses[float32]("NewPoses", n) }

// NewPoses64 is NewPoses in float64.
func NewPoses64(n int) *Poses64 { return newPoses[float64]("NewPoses64", n) }

func newPoses[F Float](what string, n int) *PosesOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	p := &PosesOf[F]{}
	p.Resize(n)
	return p
}

func (p *PosesOf[F]) streams() [7]*[]F {
	return [7]*[]F{&p.PX, &p.PY, &p.PZ, &p.QX, &p.QY, &p.QZ, &p.QW}
}

// Len returns the number of poses, the length of PX.
func (p *PosesOf[F]) Len() int { return len(p.PX) }

// Set stores pose i: position pos, rotation q = (x, y, z, w).
func (p *PosesOf[F]) Set(i int, pos [3]F, q [4]F) {
	p.PX[i], p.PY[i], p.PZ[i] = pos[0], pos[1], pos[2]
	p.QX[i], p.QY[i], p.QZ[i], p.QW[i] = q[0], q[1], q[2], q[3]
}

// Get returns pose i: its position and its quaternion (x, y, z, w).
func (p *PosesOf[F]) Get(i int) (pos [3]F, q [4]F) {
	return [3]F{p.PX[i], p.PY[i], p.PZ[i]}, [4]F{p.QX[i], p.QY[i], p.QZ[i], p.QW[i]}
}

// Append adds one pose at the end.
func (p *PosesOf[F]) Append(pos [3]F, q [4]F) {
	st := p.streams()
	p.Set(appendSlot("Poses", st[:], inputLine), pos, q)
}

// Resize sets the number of poses to n, keeping the first min(Len, n).
func (p *PosesOf[F]) Resize(n int) {
	st := p.streams()
	resizeStreams("Poses", st[:], n, n, inputLine)
}

// Reset sets the length to zero and keeps the storage.
func (p *PosesOf[F]) Reset() {
	st := p.streams()
	resetStreams(st[:])
}
