# staprun.sh - sourced by the guest scripts that run SystemTap 4.8 modules
# (busybox sh; needs OUT and KPL set).
# staprun_start M: staprun /bench/M.ko in the background (pid in SP); returns
# once the module is live and, unless M is an idle control, its getpid kprobe
# is listed, plus one second (at most 60 s)
staprun_start() {
	staprun /bench/$1.ko > /tmp/$1.out 2>&1 &
	SP=$!
	t=0
	while [ $t -lt 300 ]; do
		if [ "$(cat /sys/module/$1/initstate 2>/dev/null)" = live ]; then
			case $1 in *idle*) break ;; esac
			grep -q getpid $KPL && break
		fi
		t=$((t + 1))
		usleep 200000
	done
	sleep 1
}
# staprun_stop M: stop the session (its end probe prints), copy its output as
# SCRIPTOUT lines
staprun_stop() {
	kill -TERM $SP
	wait $SP
	rc=$?
	sed "s/^/SCRIPTOUT $1 rc=$rc: /" /tmp/$1.out > $OUT
}
