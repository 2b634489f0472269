# SPDX-License-Identifier: MIT
# tests/fleet/shards.sh - two clickhouse-server shards on loopback, for
# tests/fleet/test-fleet.sh and bench/fleet-bench.sh (sourced): each from
# a config file generated in $T/sN (its data there too), on the ports
# $P1H/$P1T and $P2H/$P2T (HTTP/TCP) that the caller picks with
# free_ports; a cluster weft_test of both shards.  No service manager:
# clickhouse-server --config-file=..., stopped by its pid ($T/sN/pid).
# die() is the caller's.

# free_ports N: N loopback ports free now, on one line; all bound at once
# (so they differ) by one interpreter (each start of one can take a
# second on a loaded machine)
free_ports() { # n
	python3 -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])' "$1"
}
free_port() {
	free_ports 1
}

# The config of shard N (1 or 2): its own ports and data; the cluster
# weft_test of both shards, the same in each.
gen_config() { # n http tcp
	local d=$T/s$1
	mkdir -p "$d/data" "$d/tmp" "$d/uf"
	cat >"$d/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/log</log><errorlog>$d/err.log</errorlog><size>10M</size><count>1</count></logger>
  <http_port>$2</http_port>
  <tcp_port>$3</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/uf/</user_files_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <remote_servers>
    <weft_test>
      <shard><replica><host>127.0.0.1</host><port>$P1T</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$P2T</port></replica></shard>
    </weft_test>
  </remote_servers>
</yandex>
EOF
	cat >"$d/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
EOF
}

# Starts shard N and waits (30 s at most) until it answers.
start_shard() { # n
	launch_shard "$1"
	wait_shard "$1"
}

# Starts shard N, not waiting for it (wait_shard does: both shards start
# side by side).
launch_shard() { # n
	clickhouse-server --config-file="$T/s$1/config.xml" </dev/null >>"$T/s$1/out" 2>&1 &
	echo $! >"$T/s$1/pid"
}

# Waits (30 s at most) until shard N answers.
wait_shard() { # n
	local port i
	[ "$1" = 1 ] && port=$P1H || port=$P2H
	for i in $(seq 600); do
		[ "$(curl -s "http://127.0.0.1:$port/ping" 2>/dev/null)" = "Ok." ] && return 0
		sleep 0.05
	done
	tail -5 "$T/s$1/err.log" "$T/s$1/out"
	die "shard $1 never answered on port $port"
}

# Stops shard N (SIGTERM; SIGKILL after 10 s) and waits until it is gone.
stop_shard() { # n
	local pid i
	pid=$(cat "$T/s$1/pid")
	kill "$pid" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || { rm -f "$T/s$1/pid"; return 0; }
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	sleep 0.5
	rm -f "$T/s$1/pid"
}

