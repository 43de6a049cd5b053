package config

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/mount"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// Additions: what the settings add first, then the env files' variables by
// name, each with a digest of the value a file sets (so a changed value
// asks again); the user's own variables are not asked about.
func TestAdditions(t *testing.T) {
	yes := true
	home := t.TempDir()
	l, err := merge([]layer{{Settings: Settings{RoBind: []string{home}, WithSSH: &yes}, from: ".claudebox.toml", base: home}}, home, home)
	if err != nil {
		t.Fatal(err)
	}
	env := environment.Env{
		Names:  []string{"ZED", "REGION", "MINE", "PATH"},
		From:   map[string]string{"ZED": ".claudebox.env", "REGION": ".claudebox.toml", "MINE": "config.toml"},
		Values: map[string]string{"REGION": "eu-west-1", "MINE": "secret"},
		Own:    map[string]bool{"MINE": true},
	}
	want := []Item{
		{Grant{kind: kindMount, digest: sum("--ro-bind " + home + "\x00" + home + "\x00" + home)}, "--ro-bind " + home + " (from .claudebox.toml)"},
		{Grant{kind: kindSSHAgent}, "--with-ssh (from .claudebox.toml)"},
		{Grant{kind: kindVariable, name: "REGION", digest: sum("eu-west-1")}, "REGION (from .claudebox.toml)"},
		{Grant{kind: kindVariable, name: "ZED"}, "ZED (from .claudebox.env)"},
	}
	got := l.Additions(env)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Additions =\n%+v\nwant\n%+v", got, want)
	}
	// Called again (the question, then the record), it lists the same.
	if again := l.Additions(env); !reflect.DeepEqual(again, want) {
		t.Errorf("a second call = %+v", again)
	}
}

// Unapproved keeps what no grant covers exactly: a variable approved with
// another value's digest, or without one, asks again.
func TestUnapproved(t *testing.T) {
	region := Item{grant: Grant{kind: kindVariable, name: "REGION", digest: sum("eu-west-1")}}
	zed := Item{grant: Grant{kind: kindVariable, name: "ZED"}}
	bind := Item{grant: Grant{kind: kindMount, digest: sum("b")}}
	ssh := Item{grant: Grant{kind: kindSSHAgent}}
	items := []Item{region, zed, bind, ssh}
	for _, c := range []struct {
		name     string
		approved []Grant
		want     []Item
	}{
		{"nothing approved", nil, items},
		{"all approved", []Grant{ssh.grant, bind.grant, zed.grant, region.grant}, nil},
		{"a value changed", []Grant{{kind: kindVariable, name: "REGION", digest: sum("us-east-1")}, zed.grant, bind.grant, ssh.grant}, []Item{region}},
		{"a value now set", []Grant{{kind: kindVariable, name: "REGION"}, zed.grant, bind.grant, ssh.grant}, []Item{region}},
		{"another bind", []Grant{region.grant, zed.grant, {kind: kindMount, digest: sum("c")}, ssh.grant}, []Item{bind}},
		{"the network is not the agent", []Grant{region.grant, zed.grant, bind.grant, {kind: kindNetwork, name: NetworkFiltered}}, []Item{ssh}},
	} {
		if got := Unapproved(items, c.approved); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Unapproved = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Without takes away exactly what each unapproved item names, and leaves
// the launch it was given as it was.
func TestWithout(t *testing.T) {
	a := mount.BindSpec{Src: "/srv/a", Dest: "/srv/a"}
	b := mount.BindSpec{Src: "/srv/b", Dest: "/srv/b", Writable: true}
	l := Launch{Binds: []mount.BindSpec{a, b}, WithSSH: true, Network: NetworkHost, ownNetwork: NetworkNone}
	env := environment.Env{Names: []string{"PATH", "REGION", "ZED"}}
	for _, c := range []struct {
		name      string
		drop      []Grant
		binds     []mount.BindSpec
		names     []string
		ssh       bool
		noNetwork bool
	}{
		{"nothing", nil, []mount.BindSpec{a, b}, env.Names, true, false},
		{"the agent", []Grant{{kind: kindSSHAgent}}, []mount.BindSpec{a, b}, env.Names, false, false},
		{"the network", []Grant{{kind: kindNetwork, name: NetworkFiltered}}, []mount.BindSpec{a, b}, env.Names, true, true},
		{"a bind", []Grant{mountGrant(b)}, []mount.BindSpec{a}, env.Names, true, false},
		{"a bind not in the launch", []Grant{mountGrant(mount.BindSpec{Src: "/srv/a", Dest: "/srv/a", Writable: true})}, []mount.BindSpec{a, b}, env.Names, true, false},
		{"a variable, by name whatever its digest", []Grant{{kind: kindVariable, name: "REGION", digest: sum("x")}}, []mount.BindSpec{a, b}, []string{"PATH", "ZED"}, true, false},
		{"everything", []Grant{{kind: kindSSHAgent}, {kind: kindNetwork, name: NetworkFiltered}, mountGrant(a), mountGrant(b), {name: "PATH"}, {name: "REGION"}, {name: "ZED"}}, []mount.BindSpec{}, []string{}, false, true},
	} {
		var items []Item
		for _, g := range c.drop {
			items = append(items, Item{grant: g})
		}
		gl, genv := l.Without(env, items)
		if !slices.Equal(gl.Binds, c.binds) || !slices.Equal(genv.Names, c.names) || gl.WithSSH != c.ssh || (gl.Network == NetworkNone) != c.noNetwork {
			t.Errorf("%s: binds %v names %v ssh %v no-network %v", c.name, gl.Binds, genv.Names, gl.WithSSH, gl.Network)
		}
		if !slices.Equal(l.Binds, []mount.BindSpec{a, b}) || !slices.Equal(env.Names, []string{"PATH", "REGION", "ZED"}) {
			t.Fatalf("%s: the launch given was changed: %v %v", c.name, l.Binds, env.Names)
		}
	}
}
