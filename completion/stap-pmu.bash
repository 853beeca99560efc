# bash completion for stap-pmu
_stap_pmu()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-p)
		COMPREPLY=($(compgen -W '1 2 3 4 5' -- "$cur")); return ;;
	-a|--vm-arch)
		COMPREPLY=($(compgen -W 'x86_64 arm64' -- "$cur")); return ;;
	--pmu-fallback)
		COMPREPLY=($(compgen -W 'none row generic' -- "$cur")); return ;;
	--output-format)
		COMPREPLY=($(compgen -W 'text json' -- "$cur")); return ;;
	--vm-tcg)
		COMPREPLY=($(compgen -W 'single multi' -- "$cur")); return ;;
	--pmu-targets)
		COMPREPLY=($(compgen -W 'host all intel amd perf skl skx clx icl icx spr hsw bdw
			amd64_fam17h_zen1 amd64_fam17h_zen2 amd64_fam19h_zen3 amd64_fam19h_zen4
			arm_ac53 arm_ac57 arm_ac72 arm_ac76 arm_n1 arm_n2 arm_v1 cortex-a57 cortex-a72 neoverse-n1' -- "${cur##*,}"))
		return ;;
	--vm-cpu)
		COMPREPLY=($(compgen -W 'qemu64 max Skylake-Client Skylake-Server Cascadelake-Server
			Haswell EPYC EPYC-Milan cortex-a57 cortex-a72' -- "$cur")); return ;;
	-r)
		COMPREPLY=($(compgen -W "$(ls /lib/modules 2>/dev/null)" -d -- "$cur")); return ;;
	-o|-I|-m)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-e|-c|-x|-D|-B|-l|-L|--pmu-encode|--vm-smp|--vm-timeout|--vm-append|--vm-after|--vm-during)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(stap-pmu --help 2>/dev/null |
			grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z0-9]*' | tr -d ' ,' | sort -u)" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -X '!*.stp' -- "$cur") $(compgen -d -- "$cur"))
}
complete -o filenames -F _stap_pmu stap-pmu
