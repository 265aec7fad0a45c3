module github.com/segdist/segdist/gen

go 1.26.0

require github.com/mmcloughlin/avo v0.6.0

require (
	golang.org/x/mod v0.27.0 // indirect
	golang.org/x/sync v0.16.0 // indirect
	golang.org/x/tools v0.36.0 // indirect
)

replace github.com/segdist/segdist => ../

require (
	github.com/segdist/segdist v0.0.0
	golang.org/x/arch v0.32.0
)
