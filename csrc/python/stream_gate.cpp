// A gate on a stream: a device task that holds its stream until the host
// opens it, so a test sees work that has not run yet without timing anything
// (no sleeps, no slow-device delays): everything enqueued behind the gate
// waits for open(), and query()/events/copies can be checked in between.
// The gate opens itself when its last Python reference goes, so a failing
// test cannot leave a stream blocked forever.
#include "python/stream_gate.h"

#include <condition_variable>
#include <memory>
#include <mutex>

#include "aten/device/tpu_stream.h"
#include "aten/launch.h"

namespace py = pybind11;

namespace torch_tpu::python {
namespace {

struct GateState {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  bool reached = false;  // the device task has started waiting
};

class StreamGate {
 public:
  StreamGate() : state_(std::make_shared<GateState>()) {
    aten::launch(aten::current_device(), "stream_gate", {}, [s = state_] {
      std::unique_lock<std::mutex> lock(s->mu);
      s->reached = true;
      s->cv.notify_all();
      s->cv.wait(lock, [&] { return s->open; });
    });
  }
  ~StreamGate() { open(); }

  void open() {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->open = true;
    state_->cv.notify_all();
  }
  bool is_open() {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->open;
  }
  // Blocks until the device has reached the gate: everything before it ran.
  void wait_reached() {
    py::gil_scoped_release no_gil;
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->cv.wait(lock, [&] { return state_->reached; });
  }

 private:
  std::shared_ptr<GateState> state_;
};

}  // namespace

void register_stream_gate(py::module& m) {
  py::class_<StreamGate>(m, "_StreamGate",
                         "_StreamGate(): holds the current tpu stream until open() (tests of asynchrony).")
      .def(py::init<>())
      .def("open", &StreamGate::open)
      .def("is_open", &StreamGate::is_open)
      .def("wait_reached", &StreamGate::wait_reached);
}

}  // namespace torch_tpu::python
