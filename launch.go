package main

import (
	"fmt"
	"os"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
)

// launchCmd runs claude (or a shell) in the sandbox, or prints the command.
type launchCmd struct {
	DryRun bool
	Yes    bool
	Shell  bool
	Agent  agent.Agent
	// The settings the command line gives; config files fill in the rest.
	Flags config.Settings
	Args  []string
}

// Run validates everything first and creates nothing until all of it is
// known to be right; then it prepares the instance and supervises bwrap.
func (l launchCmd) Run(home session.Home) error {
	s, err := session.Prepare(session.Options{Home: home, Shell: l.Shell, Agent: l.Agent, Flags: l.Flags, Args: l.Args, ReadMounts: readMounts, Launch: !l.DryRun})
	if err != nil {
		return err
	}
	if l.DryRun {
		for _, line := range s.Policy() {
			fmt.Println("# " + line)
		}
		for _, b := range s.Skipped() {
			printable.Say(os.Stdout, "# skipped %s", b)
		}
		for _, a := range s.Unapproved() {
			printable.Say(os.Stdout, "# not yet approved for this project (a launch asks first): %s", a.Show)
		}
		if n := s.PortsNote(); n != "" {
			printable.Say(os.Stdout, "# %s", n)
		}
		fmt.Print(s.Script())
		return nil
	}
	s.ExportInbox()
	return s.Run(l.Yes)
}

// readMounts reads the machine's mount table and fstab.
func readMounts() gc.Mounts { return gc.ReadMounts(mountinfoFile, fstabFile) }
