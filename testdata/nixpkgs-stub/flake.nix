# A stand-in for nixpkgs, so that claudebox's flake can be evaluated without
# the internet (flake_test.go passes it with --override-input). A package is
# a fake store path named after it; buildGoModule and mkShell return their
# arguments as a derivation-shaped attribute set, for the test to inspect.
{
  outputs =
    { self }:
    let
      lib = {
        genAttrs = names: f: builtins.listToAttrs (map (n: { name = n; value = f n; }) names);
        makeBinPath = ps: builtins.concatStringsSep ":" (map (p: "${p}/bin") ps);
      };
      fake = name: "/nix/store/00000000000000000000000000000000-${name}";
      drv = name: args: args // { type = "derivation"; outPath = fake name; };
      pkgsFor = system: {
        inherit lib;
        stdenv.hostPlatform.system = system;
        buildGoModule = args: drv "${args.pname}-${args.version}" args;
        mkShell = args: drv "shell" args;
        installShellFiles = fake "installShellFiles";
        makeWrapper = fake "makeWrapper";
        bubblewrap = fake "bubblewrap";
        git = fake "git";
        go = fake "go";
        gopls = fake "gopls";
        tmux = fake "tmux";
        nixfmt-rfc-style = fake "nixfmt";
      };
    in
    {
      inherit lib;
      legacyPackages = lib.genAttrs [ "x86_64-linux" "aarch64-linux" ] pkgsFor;
    };
}
