// Events: a record captures (stream, seq of the last task enqueued there).
// Timing-enabled records enqueue a marker task that stamps the time when the
// stream reaches it, so elapsed_time measures device time between records.
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "capture_internal.h"
#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

namespace detail {

// Written once by a marker task; read only after the record completed.
struct TimeStamp {
  std::chrono::steady_clock::time_point when;
};

// What one record captured. Copied out under the event's mutex so records,
// queries and waits on one event from many threads do not race.
struct Capture {
  StreamImpl* stream = nullptr;  // streams are never freed (see stream_create)
  uint64_t seq = 0;
  // Recorded on a capturing stream: the capture's id, and no stream/seq.
  // While the capture is underway it orders streams that join it; after,
  // the event is as if never recorded (its work is in a graph).
  uint64_t capture_id = 0;
  std::shared_ptr<TimeStamp> stamp;  // shared with the marker task
};

}  // namespace detail

struct EventImpl {
  static constexpr uint32_t kMagic = 0x45565431u;
  uint32_t magic = kMagic;
  unsigned flags = kEventDefault;
  std::mutex mu;
  detail::Capture capture;  // guarded by mu
};

using namespace detail;

namespace {

Status check_event(Event e, const char* what) {
  if (!e || e->magic != EventImpl::kMagic) return fail(Status::kInvalidValue, std::string(what) + ": invalid event handle");
  if (bad_fork()) return forked_error();
  return Status::kSuccess;
}

Capture snapshot(Event e) {
  std::lock_guard<std::mutex> lock(e->mu);
  return e->capture;
}

// Waiting for an event recorded in a capture that is still underway waits
// for work that has not run: refused (and the capture invalidated).
Status refuse_if_captured(const Capture& c, const char* api) {
  if (!c.capture_id) return Status::kSuccess;
  return refuse_capture(c.capture_id, std::string(api) + " of an event recorded in the capture");
}

}  // namespace

Status event_create(Event* out, unsigned flags) {
  if (!out) return fail(Status::kInvalidValue, "event_create: out is null");
  if (bad_fork()) return forked_error();
  auto* e = new EventImpl;
  e->flags = flags;
  *out = e;
  return Status::kSuccess;
}

Status event_destroy(Event e) {
  if (Status st = check_event(e, "event_destroy"); st != Status::kSuccess) return st;
  // Pending marker tasks only hold the shared TimeStamp, never the event.
  e->magic = 0;
  delete e;
  return Status::kSuccess;
}

Status event_record(Event e, Stream s) {
  if (Status st = check_event(e, "event_record"); st != Status::kSuccess) return st;
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  Capture c;
  if (CaptureImpl* cap = capturing(impl)) {
    c.capture_id = cap->id;
    std::lock_guard<std::mutex> lock(e->mu);
    e->capture = std::move(c);
    return Status::kSuccess;
  }
  c.stream = impl;
  if (e->flags & kEventDisableTiming) {
    c.seq = impl->submitted.load(std::memory_order_acquire);
  } else {
    c.stamp = std::make_shared<TimeStamp>();
    Task marker;
    marker.name = "event record";
    marker.fn = [stamp = c.stamp] { stamp->when = std::chrono::steady_clock::now(); };
    c.seq = enqueue(impl, std::move(marker));
  }
  std::lock_guard<std::mutex> lock(e->mu);
  e->capture = std::move(c);  // re-recording replaces the capture
  return Status::kSuccess;
}

Status event_query(Event e) {
  if (Status st = check_event(e, "event_query"); st != Status::kSuccess) return st;
  const Capture c = snapshot(e);
  if (Status st = refuse_if_captured(c, "event_query"); st != Status::kSuccess) return st;
  if (!c.stream || reached(c.stream, c.seq)) return Status::kSuccess;
  return Status::kNotReady;
}

Status event_synchronize(Event e) {
  if (Status st = check_event(e, "event_synchronize"); st != Status::kSuccess) return st;
  const Capture c = snapshot(e);
  if (Status st = refuse_if_captured(c, "event_synchronize"); st != Status::kSuccess) return st;
  if (!c.stream) return Status::kSuccess;
  if (c.stream == t_exec.stream && !reached(c.stream, c.seq)) {
    return fail(Status::kInvalidValue, "event_synchronize: the event waits for work queued behind the calling task");
  }
  wait_for(c.stream, c.seq);
  return take_error(c.stream);
}

Status stream_wait_event(Stream s, Event e) {
  if (Status st = check_event(e, "stream_wait_event"); st != Status::kSuccess) return st;
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  const Capture c = snapshot(e);
  if (c.capture_id) return capture_join(impl, c.capture_id);
  if (CaptureImpl* cap = capturing(impl); cap && c.stream && c.stream != impl) {
    return capture_refuse(cap, "stream_wait_event on a capturing stream for an event recorded outside the capture");
  }
  // Nothing to wait for: never recorded, same stream (in order), or done.
  if (!c.stream || c.stream == impl || reached(c.stream, c.seq)) return Status::kSuccess;
  Task wait;
  wait.name = "stream_wait_event";
  // A record always precedes the wait, so waits cannot form a cycle.
  wait.fn = [other = c.stream, seq = c.seq] { wait_for(other, seq); };
  enqueue(impl, std::move(wait));
  return Status::kSuccess;
}

Status event_elapsed_time(float* ms, Event start, Event end) {
  if (!ms) return fail(Status::kInvalidValue, "event_elapsed_time: ms is null");
  if (Status st = check_event(start, "event_elapsed_time"); st != Status::kSuccess) return st;
  if (Status st = check_event(end, "event_elapsed_time"); st != Status::kSuccess) return st;
  if ((start->flags | end->flags) & kEventDisableTiming) {
    return fail(Status::kTimingDisabled, "event_elapsed_time: an event was created with kEventDisableTiming");
  }
  const Capture a = snapshot(start), b = snapshot(end);
  if (!a.stream || !b.stream) {
    return fail(Status::kEventNotRecorded, "event_elapsed_time: an event was never recorded");
  }
  if (!reached(a.stream, a.seq) || !reached(b.stream, b.seq)) {
    return fail(Status::kNotReady, "event_elapsed_time: a recorded event has not completed yet");
  }
  // reached() is an acquire load of the marker's completion: the stamp is visible.
  const auto d = b.stamp->when - a.stamp->when;
  *ms = std::chrono::duration<float, std::milli>(d).count();
  return Status::kSuccess;
}

int event_device(Event e) {
  if (!e || e->magic != EventImpl::kMagic) return -1;
  const Capture c = snapshot(e);
  return c.stream ? c.stream->device : -1;
}

}  // namespace torch_tpu::runtime
