{{/* Chart name, truncated to the 63 characters a DNS label allows. */}}
{{- define "rgs.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: release-chart, or fullnameOverride. */}}
{{- define "rgs.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "rgs.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "rgs.labels" -}}
helm.sh/chart: {{ include "rgs.chart" . }}
{{ include "rgs.selectorLabels" . }}
app.kubernetes.io/version: {{ include "rgs.imageTag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: rgs
{{- end }}

{{/* Labels that select the server pods (immutable once deployed: keep them few). */}}
{{- define "rgs.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rgs.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "rgs.serverSelectorLabels" -}}
{{ include "rgs.selectorLabels" . }}
app.kubernetes.io/component: server
{{- end }}

{{/* The migration Job's ServiceAccount. */}}
{{- define "rgs.migrationServiceAccountName" -}}
{{- if .Values.migrations.serviceAccount.create }}
{{- default (printf "%s-migrate" (include "rgs.fullname" .)) .Values.migrations.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.migrations.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Seconds the calls in flight get after SIGTERM: what is left of the pod's grace period once the
preStop sleep has run, minus the margin for answering the cut-short calls and exiting.
*/}}
{{- define "rgs.shutdownGraceSeconds" -}}
{{- sub (sub (int .Values.terminationGracePeriodSeconds) (int .Values.shutdown.preStopSleepSeconds)) (int .Values.shutdown.exitMarginSeconds) }}
{{- end }}

{{- define "rgs.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "rgs.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "rgs.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{- define "rgs.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (include "rgs.imageTag" .) }}
{{- end }}
{{- end }}

{{/* The Secret holding the database URL and the operator keys. */}}
{{- define "rgs.secretName" -}}
{{- default (include "rgs.fullname" .) .Values.existingSecret }}
{{- end }}

{{- define "rgs.platformConfigMapName" -}}
{{- default (printf "%s-platform" (include "rgs.fullname" .)) .Values.existingPlatformConfigMap }}
{{- end }}

{{/* The Secret with one operator's wallet credentials: dict "root" $ "operator" <operator>. */}}
{{- define "rgs.walletSecretName" -}}
{{- default (printf "%s-wallet-%s" (include "rgs.fullname" .root) .operator.id) .operator.wallet.secretName }}
{{- end }}

{{/*
Refuse combinations the service itself would refuse at start-up, so a bad release fails at
`helm install` rather than as a crash loop.
*/}}
{{- define "rgs.validate" -}}
{{- range .Values.operators }}
{{- if eq .wallet.kind "http" }}
{{- $_ := required (printf "operators[%s].wallet.url is required (the operator's HTTP wallet)" .id) .wallet.url }}
{{- if and (eq $.Values.environment "production") (not (hasPrefix "https://" .wallet.url)) }}
{{- fail (printf "operators[%s].wallet.url: in production an HTTP wallet is reached over https only" .id) }}
{{- end }}
{{- else }}
{{- $_ := required (printf "operators[%s].wallet.address is required (host:port of the operator's wallet)" .id) .wallet.address }}
{{- if and (eq $.Values.environment "production") (eq (.wallet.tls | default "none") "none") }}
{{- fail (printf "operators[%s].wallet.tls: in production a gRPC wallet is reached over TLS only (ca or mutual)" .id) }}
{{- end }}
{{- end }}
{{- if and (not .wallet.secretName) (not (or .wallet.apiKey .wallet.hmacSecret)) }}
{{- fail (printf "operators[%s].wallet.secretName is required: the Secret with its wallet credentials" .id) }}
{{- end }}
{{- if and (eq $.Values.environment "production") (or .wallet.apiKey .wallet.hmacSecret) }}
{{- fail (printf "operators[%s].wallet: inline credentials are refused in production: use secretName" .id) }}
{{- end }}
{{- end }}
{{- if and (eq .Values.environment "production") (not .Values.tls.existingSecret) }}
{{- fail "environment=production serves TLS only: set tls.existingSecret (a kubernetes.io/tls Secret)" }}
{{- end }}
{{- if and (eq .Values.environment "production") .Values.web.launch.url (not (hasPrefix "https://" .Values.web.launch.url)) }}
{{- fail "web.launch.url: in production players open launch URLs over https only (https://play.example.com/)" }}
{{- end }}
{{- if and (eq .Values.environment "production") .Values.testMode }}
{{- fail "testMode (forced cards) is refused together with environment=production" }}
{{- end }}
{{- if and (not .Values.tls.existingSecret) (not .Values.allowPlaintext) }}
{{- fail "without tls.existingSecret the pods serve plaintext: set allowPlaintext=true (development only)" }}
{{- end }}
{{- if not .Values.existingSecret }}
{{- $_ := required "database.url is required (or set existingSecret)" .Values.database.url }}
{{- end }}
{{- if lt (int (include "rgs.shutdownGraceSeconds" .)) 1 }}
{{- fail (printf "terminationGracePeriodSeconds (%v) leaves no time for calls in flight after shutdown.preStopSleepSeconds (%v) and shutdown.exitMarginSeconds (%v): raise it" .Values.terminationGracePeriodSeconds .Values.shutdown.preStopSleepSeconds .Values.shutdown.exitMarginSeconds) }}
{{- end }}
{{- range .Values.operators }}
{{- if lt (float64 $.Values.database.playerLeaseSeconds) (mulf 2 (float64 (.wallet.timeout_s | default 5))) }}
{{- fail (printf "database.playerLeaseSeconds must be at least twice operators[%s].wallet.timeout_s (a call must not lose its player while it waits for the wallet)" .id) }}
{{- end }}
{{- end }}
{{- include "rgs.validateSizing" . }}
{{- if and .Values.prometheusRule.enabled (not .Values.prometheusRule.runbookBaseUrl) }}
{{- fail "prometheusRule.runbookBaseUrl is required with prometheusRule.enabled: the absolute URL where ops/runbooks is published (each alert links <base>/<AlertName>.md)" }}
{{- end }}
{{- end }}

{{/* Environment shared by the server and the migration Job. */}}
{{- define "rgs.commonEnv" -}}
- name: RGS_ENVIRONMENT
  value: {{ .Values.environment | quote }}
- name: RGS_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "rgs.secretName" . }}
      key: {{ .Values.secretKeys.databaseUrl }}
- name: RGS_LOG_FORMAT
  value: json
- name: RGS_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: RGS_DATABASE_POOL_MODE
  value: {{ .Values.database.poolMode | quote }}
- name: RGS_DATABASE_PREVIOUS_RELEASE_LOCK
  value: {{ .Values.database.previousReleaseLock | quote }}
{{- end }}

{{/* The hardened container security context. */}}
{{- define "rgs.containerSecurityContext" -}}
{{- toYaml .Values.securityContext }}
{{- end }}

{{/* Worker processes per pod: .Values.workers, or the CPU limit (else request) rounded up. */}}
{{- define "rgs.workers" -}}
{{- if .Values.workers -}}
{{- .Values.workers -}}
{{- else -}}
{{- $res := .Values.resources | default dict -}}
{{- $cpu := dig "limits" "cpu" "" $res | default (dig "requests" "cpu" "" $res) | toString -}}
{{- $milli := 1000 -}}
{{- if hasSuffix "m" $cpu -}}
{{- $milli = trimSuffix "m" $cpu | int -}}
{{- else if $cpu -}}
{{- $milli = mulf (float64 $cpu) 1000 | int -}}
{{- end -}}
{{- max 1 (div (add $milli 999) 1000) -}}
{{- end -}}
{{- end }}

{{/*
Sizing (ops/capacity.md). Pods at most: autoscaling.maxReplicas, else replicaCount.
*/}}
{{- define "rgs.maxPods" -}}
{{- if .Values.autoscaling.enabled }}{{ .Values.autoscaling.maxReplicas }}{{ else }}{{ .Values.replicaCount }}{{ end }}
{{- end }}

{{/*
Journal connections per worker for calls: database.poolSize, or 0 = derived from the connection
budget: what each worker of the largest deployment may have, after the tables' pool (half of
it, at least 2) and the 3 of the sampler and the controls, at most 10 (one event loop gains
little beyond that), at least 2.
*/}}
{{- define "rgs.poolSize" -}}
{{- if .Values.database.poolSize -}}
{{- .Values.database.poolSize -}}
{{- else -}}
{{- $perWorker := div (sub (int .Values.database.connectionBudget) (int (include "rgs.jobConnections" .))) (mul (int (include "rgs.maxPods" .)) (int (include "rgs.workers" .))) -}}
{{- min 10 (max 2 (div (mul (sub $perWorker 3) 2) 3)) -}}
{{- end -}}
{{- end }}

{{/* Connections one worker opens at most: calls, the tables' pool, sampler and controls. */}}
{{- define "rgs.connectionsPerWorker" -}}
{{- $pool := int (include "rgs.poolSize" .) -}}
{{- add $pool (max 2 (div $pool 2)) 3 -}}
{{- end }}

{{/* Distinct rule sets (variant and its options) the brands with hints play: each worker keeps
the exact analysis of each. */}}
{{- define "rgs.hintRuleSets" -}}
{{- $sets := dict -}}
{{- range .Values.operators }}{{ range .brands }}{{ if .hints }}{{ range $v, $opts := .variants }}
{{- $_ := set $sets (printf "%s %s" $v (toJson $opts)) true -}}
{{- end }}{{ end }}{{ end }}{{ end -}}
{{- len $sets -}}
{{- end }}

{{/* The memory a pod needs, in MiB: 256 for the supervisor and headroom, and per worker 120
plus the hints' analyses: 135 per rule set up to 375 for five, 75 per set beyond
(bench/memory.py: +31 to +133 MiB per variant, +364 MiB for all five; ops/capacity.md). */}}
{{- define "rgs.hintsMi" -}}
{{- $sets := int (include "rgs.hintRuleSets" .) -}}
{{- if le $sets 5 }}{{ min 375 (mul 135 $sets) }}{{ else }}{{ add 375 (mul 75 (sub $sets 5)) }}{{ end -}}
{{- end }}

{{- define "rgs.memoryMi" -}}
{{- $perWorker := add 120 (int (include "rgs.hintsMi" .)) -}}
{{- add 256 (mul (int (include "rgs.workers" .)) $perWorker) -}}
{{- end }}

{{/* A Kubernetes quantity (Mi, Gi, M, G, Ki) in MiB, rounded down; 0 when empty. */}}
{{- define "rgs.quantityMi" -}}
{{- $q := toString . -}}
{{- if not $q -}}0
{{- else if hasSuffix "Gi" $q -}}{{ mulf (float64 (trimSuffix "Gi" $q)) 1024 | int }}
{{- else if hasSuffix "Mi" $q -}}{{ trimSuffix "Mi" $q | int }}
{{- else if hasSuffix "Ki" $q -}}{{ div (trimSuffix "Ki" $q | int) 1024 }}
{{- else if hasSuffix "G" $q -}}{{ divf (mulf (float64 (trimSuffix "G" $q)) 1000000000) 1048576 | int }}
{{- else if hasSuffix "M" $q -}}{{ divf (mulf (float64 (trimSuffix "M" $q)) 1000000) 1048576 | int }}
{{- else -}}{{ div (int64 $q) 1048576 }}
{{- end -}}
{{- end }}

{{/* The server container's resources: as given, memory derived where it is not. */}}
{{- define "rgs.resources" -}}
{{- $res := deepCopy (.Values.resources | default dict) -}}
{{- $need := printf "%dMi" (int (include "rgs.memoryMi" .)) -}}
{{- $limits := $res.limits | default dict -}}
{{- if not $limits.memory }}{{ $_ := set $limits "memory" $need }}{{ end -}}
{{- $_ := set $res "limits" $limits -}}
{{- $requests := $res.requests | default dict -}}
{{- if not $requests.memory }}{{ $_ := set $requests "memory" $limits.memory }}{{ end -}}
{{- $_ := set $res "requests" $requests -}}
{{- toYaml $res -}}
{{- end }}

{{/* The database connections of everything but the server's workers, one each: the migration
Job, the purge CronJob, the partitions CronJob and the RTP monitoring worker when enabled. */}}
{{- define "rgs.jobConnections" -}}
{{- add 2 (ternary 1 0 .Values.lifecycle.partitions.enabled) (ternary 1 0 .Values.rtp.enabled) -}}
{{- end -}}

{{/* Refuse sizes that break the connection budget, the drain arithmetic or the memory. */}}
{{- define "rgs.validateSizing" -}}
{{- $pods := int (include "rgs.maxPods" .) -}}
{{- $workers := int (include "rgs.workers" .) -}}
{{- $perWorker := int (include "rgs.connectionsPerWorker" .) -}}
{{- $jobs := int (include "rgs.jobConnections" .) -}}
{{- $total := add (mul $pods $workers $perWorker) $jobs -}}
{{- if gt $total (int .Values.database.connectionBudget) }}
{{- fail (printf "connection budget: %d pods x %d workers x %d connections (database.poolSize %s, its tables' pool, sampler and controls) + %d (migration Job, purge CronJob%s%s) = %d, more than database.connectionBudget %v (PgBouncer's max_client_conn, or PostgreSQL's max_connections less its reserve): lower database.poolSize (0 derives it), the workers or autoscaling.maxReplicas, or raise the budget (ops/capacity.md)" $pods $workers $perWorker (include "rgs.poolSize" .) $jobs (ternary ", partitions CronJob" "" .Values.lifecycle.partitions.enabled) (ternary ", RTP worker" "" .Values.rtp.enabled) $total .Values.database.connectionBudget) }}
{{- end }}
{{- $wallet := 0.0 -}}
{{- range .Values.operators }}{{ $wallet = maxf $wallet (float64 (.wallet.timeout_s | default 5)) }}{{ end -}}
{{- $drain := float64 (include "rgs.shutdownGraceSeconds" .) -}}
{{- $need := addf (float64 .Values.database.lockWaitSeconds) (mulf 2 $wallet) -}}
{{- if lt $drain $need }}
{{- fail (printf "drain: the calls in flight get %v s after SIGTERM (terminationGracePeriodSeconds - shutdown.preStopSleepSeconds - shutdown.exitMarginSeconds), less than database.lockWaitSeconds (%v) + 2 x the longest operators[].wallet.timeout_s (%v) = %v s that a call may still need: raise terminationGracePeriodSeconds (ops/capacity.md)" $drain .Values.database.lockWaitSeconds $wallet $need) }}
{{- end }}
{{- $limit := int (include "rgs.quantityMi" (dig "limits" "memory" "" (.Values.resources | default dict))) -}}
{{- if and $limit (lt $limit (int (include "rgs.memoryMi" .))) }}
{{- fail (printf "resources.limits.memory (%v) is below what %d workers need: %d MiB (256 + per worker 120, plus %s for the %s rule sets hints brands play); leave it empty to derive it, or lower the workers (ops/capacity.md)" .Values.resources.limits.memory $workers (int (include "rgs.memoryMi" .)) (include "rgs.hintsMi" .) (include "rgs.hintRuleSets" .)) }}
{{- end }}
{{- end }}

{{/* The probe's pod (templates/probe.yaml), either mode: (list $ args). */}}
{{- define "rgs.probe.pod" -}}
{{- $ := index . 0 }}
{{- $args := index . 1 -}}
metadata:
  labels:
    {{- include "rgs.selectorLabels" $ | nindent 4 }}
    app.kubernetes.io/component: probe
spec:
  automountServiceAccountToken: false
  {{- if eq $.Values.probe.mode "cronjob" }}
  restartPolicy: Never
  {{- end }}
  {{- with $.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml $.Values.podSecurityContext | nindent 4 }}
  containers:
    - name: probe
      image: {{ include "rgs.image" $ | quote }}
      imagePullPolicy: {{ $.Values.image.pullPolicy }}
      args:
        {{- toYaml $args | nindent 8 }}
        {{- if $.Values.tls.existingSecret }}
        - --tls-ca
        - /etc/rgs/tls/ca.crt
        {{- with $.Values.probe.tlsServerName }}
        - --tls-server-name
        - {{ . | quote }}
        {{- end }}
        {{- end }}
      {{- if ne $.Values.probe.mode "cronjob" }}
      ports:
        - name: metrics
          containerPort: {{ $.Values.probe.metricsPort }}
          protocol: TCP
      {{- end }}
      resources:
        {{- toYaml $.Values.probe.resources | nindent 8 }}
      securityContext:
        {{- include "rgs.containerSecurityContext" $ | nindent 8 }}
      volumeMounts:
        - name: key
          mountPath: /etc/rgs/probe
          readOnly: true
        {{- if $.Values.tls.existingSecret }}
        - name: tls
          mountPath: /etc/rgs/tls
          readOnly: true
        {{- end }}
  volumes:
    - name: key
      secret:
        secretName: {{ required "probe.existingSecret is required with probe.enabled: the Secret with the probe operator's API key" $.Values.probe.existingSecret }}
        items:
          - key: {{ $.Values.probe.secretKey }}
            path: {{ $.Values.probe.secretKey }}
    {{- if $.Values.tls.existingSecret }}
    - name: tls
      secret:
        secretName: {{ $.Values.tls.existingSecret }}
        items:
          - key: ca.crt
            path: ca.crt
    {{- end }}
{{- end }}
