{{- /*
Names, labels and the image reference every template of this component uses. Named templates are global
across the umbrella chart and its subcharts, so each name carries the component's prefix.
*/}}

{{- /* The component's namespaced objects: fullnameOverride, or the component's own name. */}}
{{- define "node-policy-operator.fullname" -}}
{{- .Values.fullnameOverride | default "node-policy-operator" | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- /*
A cluster-scoped object's name (ClusterRoles, their bindings, admission configuration): the release name in
front, so two releases never write the same object. Argument: (list . "suffix"), the suffix may be empty.
Not cut to 63 characters: these names are DNS subdomains (253), and a cut would give a long release's
objects one name. At most 53 (release) + 63 (fullname) + 20 (suffix) + 2 characters.
*/}}
{{- define "node-policy-operator.clusterScopedName" -}}
{{- $root := index . 0 -}}
{{- $suffix := index . 1 -}}
{{- $name := printf "%s-%s" $root.Release.Name (include "node-policy-operator.fullname" $root) -}}
{{- if $suffix }}{{ $name = printf "%s-%s" $name $suffix }}{{ end -}}
{{- $name -}}
{{- end }}

{{- /* Labels a Pod selector matches: stable for the life of the release. */}}
{{- define "node-policy-operator.selectorLabels" -}}
app.kubernetes.io/name: node-policy-operator
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end }}

{{- /* Labels on every object the component renders. */}}
{{- define "node-policy-operator.labels" -}}
{{ include "node-policy-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: sriov-dra
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- /*
The image reference: [<registry>/]<repository>:<tag>[@<digest>]. global.imageRegistry replaces the
component's registry; an empty tag is the chart's appVersion.
*/}}
{{- define "node-policy-operator.image" -}}
{{- $registry := (.Values.global | default dict).imageRegistry | default .Values.image.registry -}}
{{- $reference := printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- if $registry }}{{ $reference = printf "%s/%s" $registry $reference }}{{ end -}}
{{- if .Values.image.digest }}{{ $reference = printf "%s@%s" $reference .Values.image.digest }}{{ end -}}
{{- $reference -}}
{{- end }}

{{- /* The Pod's imagePullSecrets, as JSON: global.imagePullSecrets, then the component's own. */}}
{{- define "node-policy-operator.imagePullSecrets" -}}
{{- concat ((.Values.global | default dict).imagePullSecrets | default list) .Values.imagePullSecrets | toJson -}}
{{- end }}

{{- /*
Where the SR-IOV policies live (global.operatorNamespace): the node-policy operator's namespace, whose
generated SriovResourcePolicies and DeviceAttributes the driver reads. Empty: the release namespace.
*/}}
{{- define "node-policy-operator.operatorNamespace" -}}
{{- (.Values.global | default dict).operatorNamespace | default .Release.Namespace -}}
{{- end }}

{{- /* The webhook's Pod selector: its own name, so its Service reaches only webhook Pods. */}}
{{- define "node-policy-operator.webhookSelectorLabels" -}}
{{- $labels := include "node-policy-operator.selectorLabels" . | fromYaml -}}
{{- $_ := set $labels "app.kubernetes.io/name" "node-policy-operator-webhook" -}}
{{- toYaml $labels -}}
{{- end }}

{{- /* Labels on every webhook object. */}}
{{- define "node-policy-operator.webhookLabels" -}}
{{- $labels := include "node-policy-operator.labels" . | fromYaml -}}
{{- $_ := set $labels "app.kubernetes.io/name" "node-policy-operator-webhook" -}}
{{- toYaml $labels -}}
{{- end }}

{{- /*
Placement of a Deployment's Pods, the operator's and the webhook's alike: pull secrets, priority,
nodeSelector, tolerations and affinity. With more than one replica and no affinity given, the replicas
prefer different nodes, so one node's loss leaves one standing. Argument: (dict "root" . "replicas" <n>
"selectorLabels" <YAML of the Pods' selector labels>).
*/}}
{{- define "node-policy-operator.podPlacement" -}}
{{- $values := .root.Values -}}
{{- with include "node-policy-operator.imagePullSecrets" .root | fromJsonArray }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if $values.affinity }}
affinity:
  {{- toYaml $values.affinity | nindent 2 }}
{{- else if gt (int .replicas) 1 }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- .selectorLabels | nindent 14 }}
{{- end }}
{{- end }}
