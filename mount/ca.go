package mount

import "slices"

// CAFile is a CA bundle a host variable names, passed in with it: the file
// at Real, shown read-only at Path (the variable's value), unless it is in
// the home, where the sandbox already sees it (the project, a bind).
type CAFile struct {
	Variable, Path, Real string
	InHome               bool
}

// addCAs shows the CA bundles and passes their variables.
func (p *Plan) addCAs(files []CAFile) {
	for _, f := range files {
		if !f.InHome && !slices.ContainsFunc(p.Mounts, func(m Mount) bool { return m.Dest == f.Path }) {
			p.add(HostFiles, RoBind, f.Real, f.Path, "CA certificates named by "+f.Variable+", read-only")
		}
		if !slices.Contains(p.Env, f.Variable) {
			p.Env = append(slices.Clone(p.Env), f.Variable)
		}
	}
}
