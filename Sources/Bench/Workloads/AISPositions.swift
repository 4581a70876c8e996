import Foundation

/// The real ship positions of ../shared/datasets/tracktable-ais (tracktable
/// `.traj` text: one trajectory per line), as one column pair plus the start
/// index of each trajectory.
struct AISPositions {
  var latitudes: [Double] = []
  var longitudes: [Double] = []
  /// Index of the first point of each trajectory, ascending.
  var trajectoryStarts: [Int] = []
  var count: Int { latitudes.count }

  /// Reads every `.traj` file of the folder, in name order.
  ///
  /// Line layout: `*T*`, uuid, domain, point count, property count, the
  /// trajectory's properties, then `*P*`, domain, dimension, has-object-id,
  /// has-timestamp, point property count, and per point: object id (if any),
  /// timestamp (if any), longitude, latitude, properties.
  static func load(directory: String) throws -> AISPositions {
    let files = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasSuffix(".traj") }.sorted()
    guard !files.isEmpty else { throw BenchError.io("no .traj files in \(directory)") }
    var positions = AISPositions()
    for file in files {
      let path = (directory as NSString).appendingPathComponent(file)
      let text = try String(contentsOfFile: path, encoding: .utf8)
      for (lineIndex, line) in text.split(separator: "\n").enumerated() {
        try positions.appendTrajectory(line: line, location: "\(file):\(lineIndex + 1)")
      }
    }
    return positions
  }

  private mutating func appendTrajectory(line: Substring, location: String) throws {
    let fields = line.split(separator: ",", omittingEmptySubsequences: false)
    guard fields.first == "*T*", let marker = fields.firstIndex(of: "*P*"),
      fields.count > marker + 5,
      let pointCount = Int(fields[3]),
      let dimension = Int(fields[marker + 2]),
      let hasID = Int(fields[marker + 3]), let hasTime = Int(fields[marker + 4]),
      let properties = Int(fields[marker + 5])
    else { throw BenchError.io("\(location): not a tracktable trajectory line") }
    let stride = hasID + hasTime + dimension + properties
    let body = fields[(marker + 6)...]
    guard dimension == 2, body.count == stride * pointCount else {
      throw BenchError.io("\(location): expected \(pointCount) points of \(stride) fields")
    }
    trajectoryStarts.append(latitudes.count)
    var index = body.startIndex + hasID + hasTime
    for _ in 0..<pointCount {
      guard let longitude = Double(body[index]), let latitude = Double(body[index + 1]) else {
        throw BenchError.io("\(location): bad coordinate '\(body[index])', '\(body[index + 1])'")
      }
      longitudes.append(longitude)
      latitudes.append(latitude)
      index += stride
    }
  }
}
