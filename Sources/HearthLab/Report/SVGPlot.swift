import Foundation
import HearthSim
import HearthTrace

/// A small SVG plot: linear axes with ticks, lines, points and marks. The
/// output is well-formed XML (it is embedded in an XHTML-compatible page);
/// every element that shows data carries `class="data …"` so a test can
/// check that no chart is empty.
struct SVGPlot {
  var width = 640.0
  var height = 360.0
  var left = 56.0
  var right = 16.0
  var top = 16.0
  var bottom = 40.0
  var x: ClosedRange<Double>
  var y: ClosedRange<Double>
  var xLabel: String
  var yLabel: String
  private var body: [String] = []

  init(x: ClosedRange<Double>, y: ClosedRange<Double>, xLabel: String, yLabel: String) {
    // A degenerate range would divide by zero: widen it.
    self.x = x.lowerBound < x.upperBound ? x : (x.lowerBound - 1)...(x.upperBound + 1)
    self.y = y.lowerBound < y.upperBound ? y : (y.lowerBound - 1)...(y.upperBound + 1)
    self.xLabel = xLabel
    self.yLabel = yLabel
  }

  func px(_ v: Double) -> Double {
    left + (v - x.lowerBound) / (x.upperBound - x.lowerBound) * (width - left - right)
  }
  func py(_ v: Double) -> Double {
    height - bottom - (v - y.lowerBound) / (y.upperBound - y.lowerBound) * (height - top - bottom)
  }

  static func number(_ v: Double) -> String { String(format: "%.1f", v) }

  /// A polyline through the finite points (a NaN breaks it).
  mutating func line(_ xs: [Double], _ ys: [Double], className: String, title: String? = nil) {
    var d = ""
    var pen = false
    for (a, b) in zip(xs, ys) {
      guard a.isFinite, b.isFinite else {
        pen = false
        continue
      }
      let c = min(max(b, y.lowerBound), y.upperBound)
      d += (pen ? "L" : "M") + Self.number(px(a)) + "," + Self.number(py(c))
      pen = true
    }
    guard !d.isEmpty else { return }
    body.append(
      "<path class=\"data \(className)\" d=\"\(d)\">\(title.map { "<title>\(XMLText.escaped($0))</title>" } ?? "")</path>"
    )
  }

  mutating func point(_ a: Double, _ b: Double, className: String, radius: Double = 4, title: String) {
    guard a.isFinite, b.isFinite else { return }
    body.append(
      "<circle class=\"data \(className)\" cx=\"\(Self.number(px(a)))\" cy=\"\(Self.number(py(b)))\" r=\"\(radius)\"><title>\(XMLText.escaped(title))</title></circle>"
    )
  }

  mutating func verticalRule(at a: Double, className: String) {
    body.append(
      "<line class=\"\(className)\" x1=\"\(Self.number(px(a)))\" x2=\"\(Self.number(px(a)))\" y1=\"\(Self.number(top))\" y2=\"\(Self.number(height - bottom))\"/>"
    )
  }

  mutating func horizontalRule(at b: Double, className: String) {
    guard y.contains(b) else { return }
    body.append(
      "<line class=\"\(className)\" x1=\"\(Self.number(left))\" x2=\"\(Self.number(width - right))\" y1=\"\(Self.number(py(b)))\" y2=\"\(Self.number(py(b)))\"/>"
    )
  }

  /// About five ticks per axis at round values (none for a range that is
  /// not finite or has no width at its magnitude). The ticks are counted,
  /// never stepped by adding: at most 7, whatever the range.
  static func ticks(_ r: ClosedRange<Double>) -> [Double] {
    let span = r.upperBound - r.lowerBound
    let raw = span / 5
    guard raw.isFinite, raw > 0 else { return [] }
    let magnitude = pow(10, (log10(raw)).rounded(.down))
    let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
    let first = (r.lowerBound / step).rounded(.up)
    var out: [Double] = []
    for i in 0..<7 {
      let t = (first + Double(i)) * step
      guard t.isFinite, t <= r.upperBound + step * 1e-9, t != out.last else { break }
      out.append(abs(t) < step * 1e-9 ? 0 : t)
    }
    return out
  }

  var svg: String {
    var out = [
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">",
      "<rect class=\"frame\" x=\"\(Self.number(left))\" y=\"\(Self.number(top))\" width=\"\(Self.number(width - left - right))\" height=\"\(Self.number(height - top - bottom))\"/>",
    ]
    for t in Self.ticks(x) {
      out.append(
        "<text class=\"tick\" x=\"\(Self.number(px(t)))\" y=\"\(Self.number(height - bottom + 14))\" text-anchor=\"middle\">\(String(format: "%g", t))</text>"
      )
    }
    for t in Self.ticks(y) {
      out.append(
        "<text class=\"tick\" x=\"\(Self.number(left - 6))\" y=\"\(Self.number(py(t) + 4))\" text-anchor=\"end\">\(String(format: "%g", t))</text>"
      )
    }
    out.append(
      "<text class=\"axis\" x=\"\(Self.number((left + width - right) / 2))\" y=\"\(Self.number(height - 6))\" text-anchor=\"middle\">\(XMLText.escaped(xLabel))</text>"
    )
    out.append(
      "<text class=\"axis\" transform=\"translate(14,\(Self.number((top + height - bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">\(XMLText.escaped(yLabel))</text>"
    )
    return (out + body + ["</svg>"]).joined(separator: "\n")
  }
}
